// A database that stops answering (packets dropped) or refuses connections: the
// routes that need it answer 503 with Retry-After within 2 s, never a 500 or a hang;
// /readyz answers 503 within 2 s; the waiting room's status and admission answer
// without it; and once it is back the service serves again, with no connection
// wedged by a statement that timed out. The service reaches PostgreSQL through
// test/support/blackholeProxy.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, ADMIN, type TestService } from '../support/service.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { redisPrefix } from '../support/clients.js';
import { start as startProxy, type BlackholeProxy } from '../support/blackholeProxy.js';
import type { HttpAnswer } from '../support/http.js';
import { roomConfig } from '../waiting-room/helpers.js';
import { loadConfig } from '../../src/config.js';

const PG_PORT = Number(new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres').port || 5432);

/** The answer and how long it took; 'hung' when there was none within `ms`. */
async function timed(send: () => Promise<HttpAnswer>, ms = 6000): Promise<{ r: HttpAnswer | 'hung'; ms: number }> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([send(), new Promise<'hung'>((resolve) => { timer = setTimeout(() => resolve('hung'), ms); })]);
  clearTimeout(timer);
  return { r, ms: Math.round(performance.now() - t0) };
}

describe('the seat database away', () => {
  const redis = redisPrefix();
  let proxy: BlackholeProxy;
  let database: TestDatabase;
  let t: TestService;
  let show: Awaited<ReturnType<typeof createShow>>;
  let roomShow: Awaited<ReturnType<typeof createShow>>;
  let unseenShow: Awaited<ReturnType<typeof createShow>>;
  let buyers: Buyer[];
  /** A hold of buyers[0], made while the database answered, for the booking attempts. */
  let holdId = '';
  const log: string[] = [];

  /** The routes that need the seat database, for buyer i (a different seat each time). */
  const routes = (i: number): [string, () => Promise<HttpAnswer>][] => [
    ['hold', () => t.http.post(`/v1/shows/${show.showId}/holds`, { seats: [show.seats[i]!] }, buyers[0]!.token)],
    ['seat map', () => t.http.get(`/v1/shows/${show.showId}/seats`)],
    ['sign-in', () => t.http.post('/v1/sessions', { email: buyers[1]!.email, password: 'password-123' })],
    ['show', () => t.http.get(`/v1/shows/${show.showId}`)],
    ['booking', () => t.http.post('/v1/bookings', { hold_id: holdId, payment_method: 'pm_card_visa' }, buyers[0]!.token, { 'idempotency-key': `outage-${i}-${Math.random()}` })],
  ];

  beforeAll(async () => {
    proxy = await startProxy(PG_PORT);
    database = await createTestDatabase();
    const url = new URL(database.url);
    url.port = String(proxy.port);
    // The production bounds, which the contract's 2 s rests on.
    t = await startTestService({ config: { ...roomConfig(redis.prefix, { showRulesRefreshMs: 100 }), databaseUrl: url.toString(), dbBounds: loadConfig({}).dbBounds } });
    show = await createShow(t);
    roomShow = await createShow(t, { waiting_room: true });
    unseenShow = await createShow(t, { waiting_room: true });
    buyers = await registerBuyers(t, 4);
  }, 60_000);

  // A test that failed midway must not leave the next one without its database.
  afterEach(async () => {
    await proxy?.mode('pass');
  });
  afterAll(async () => {
    await proxy?.mode('pass');
    await t?.close();
    await proxy?.close();
    await database?.drop();
    await redis.cleanUp();
    if (log.length) console.log(log.join('\n'));
  });

  it('stops answering: 503 with Retry-After within 2 s; back, it serves again without a wedged connection', async () => {
    const held = await t.http.post(`/v1/shows/${show.showId}/holds`, { seats: [show.seats[0]!] }, buyers[0]!.token);
    expect(held.status).toBe(201);
    holdId = held.body.hold_id as string;
    await proxy.mode('blackhole');
    let i = 1;
    for (const [name, send] of [...routes(i++), ['readyz', () => t.http.get('/readyz')] as const]) {
      const { r, ms } = await timed(send);
      log.push(`blackhole ${name}: ${r === 'hung' ? 'no answer' : r.status} in ${ms} ms`);
      expect.soft(r, `${name} answered`).not.toBe('hung');
      if (r === 'hung') continue;
      expect.soft(r.status, `${name}: ${r.text}`).toBe(503);
      if (name !== 'readyz') expect.soft(Number(r.headers['retry-after']), name).toBeGreaterThanOrEqual(1);
      expect.soft(ms, name).toBeLessThan(2000);
    }

    await proxy.mode('pass');
    const back = performance.now();
    for (;;) {
      const { r } = await timed(() => t.http.post(`/v1/shows/${show.showId}/holds`, { seats: [show.seats[20]!] }, buyers[2]!.token), 5000);
      if (r !== 'hung' && r.status === 201) break;
      expect(performance.now() - back, 'a hold succeeds within 5 s of the database coming back').toBeLessThan(5000);
      await new Promise((res) => setTimeout(res, 100));
    }
    log.push(`pass: first hold after ${Math.round(performance.now() - back)} ms`);
    // Every connection of the pool in turn: none may be one whose statement timed out.
    // (Sign-in is left out: its scrypt, not the database, is what a burst of it waits on.)
    const reads = (k: number) => routes(40 + k).filter(([name]) => ['hold', 'seat map', 'show'].includes(name))[k % 3]!;
    const answers = await Promise.all(Array.from({ length: 40 }, async (_, k) => ({ name: reads(k)[0], ...(await timed(reads(k)[1], 5000)) })));
    const bad = answers.filter(({ r }) => r === 'hung' || r.status >= 500);
    expect(bad.map(({ name, r, ms }) => `${name}: ${r === 'hung' ? `no answer in ${ms} ms` : `${r.status} ${r.text}`}`)).toEqual([]);
  }, 30_000);

  it('refuses connections: 503 with Retry-After, never a 500; the waiting room answers without it', async () => {
    // A place in each room; then this instance forgets one show's rules, as a fresh instance would not have them.
    const joined: string[] = [];
    for (const s of [roomShow, unseenShow]) {
      const j = await t.http.post(`/v1/shows/${s.showId}/queue`, {}, buyers[3]!.token);
      expect(j.status, j.text).toBe(201);
      joined.push(j.body.queue_token as string);
    }
    await new Promise((res) => setTimeout(res, 300)); // a few of the room's ticks
    t.service.ctx.showRules.forget(unseenShow.showId);
    await proxy.mode('refuse');

    let i = 60;
    for (const [name, send] of [...routes(i++), ['readyz', () => t.http.get('/readyz')] as const]) {
      const { r, ms } = await timed(send);
      log.push(`refuse ${name}: ${r === 'hung' ? 'no answer' : r.status} in ${ms} ms`);
      expect.soft(r, `${name} answered`).not.toBe('hung');
      if (r === 'hung') continue;
      expect.soft(r.status, `${name}: ${r.text}`).toBe(503);
      if (name !== 'readyz') expect.soft(Number(r.headers['retry-after']), name).toBeGreaterThanOrEqual(1);
      expect.soft(ms, name).toBeLessThan(2000);
    }

    // The scrape gives this process's metrics; the database's figures count as not read
    // (the count is read before the figures are: it shows from the next scrape on).
    await t.http.get('/metrics');
    const scrape = await timed(() => t.http.get('/metrics'));
    log.push(`refuse /metrics: ${scrape.r === 'hung' ? 'no answer' : scrape.r.status} in ${scrape.ms} ms`);
    expect.soft(scrape.r !== 'hung' && scrape.r.status).toBe(200);
    if (scrape.r !== 'hung') expect.soft(scrape.r.text).toMatch(/^boxoffice_db_figure_read_failures_total\{figure="boxoffice_bookings"\} [1-9]/m);

    for (const [k, s] of [roomShow, unseenShow].entries()) {
      const what = k === 0 ? 'rules cached' : 'rules not cached';
      const status = await timed(() => t.http.get(`/v1/shows/${s.showId}/queue`));
      log.push(`refuse queue status (${what}): ${status.r === 'hung' ? 'no answer' : status.r.status} in ${status.ms} ms`);
      expect.soft(status.r !== 'hung' && status.r.status, `status, ${what}: ${status.r !== 'hung' ? status.r.text : ''}`).toBe(200);
      const admit = await timed(() => t.http.post(`/v1/shows/${s.showId}/queue/admit`, { queue_token: joined[k] }, buyers[3]!.token));
      log.push(`refuse admit (${what}): ${admit.r === 'hung' ? 'no answer' : admit.r.status} in ${admit.ms} ms`);
      expect.soft(admit.r !== 'hung' && admit.r.status, `admit, ${what}: ${admit.r !== 'hung' ? admit.r.text : ''}`).toBe(200);
      expect.soft(admit.ms).toBeLessThan(2000);
    }

    await proxy.mode('pass');
    const back = performance.now();
    for (;;) {
      const { r } = await timed(() => t.http.post('/v1/sessions', ADMIN), 5000);
      if (r !== 'hung' && r.status === 200) break;
      expect(performance.now() - back, 'sign-in works within 5 s of the database coming back').toBeLessThan(5000);
      await new Promise((res) => setTimeout(res, 100));
    }
  }, 30_000);
});
