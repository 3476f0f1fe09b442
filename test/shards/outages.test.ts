// Shards by show when a database goes away (docs/scale-out.md): three PostgreSQL 15
// clusters of the test's own (control, shard a, shard b; test/support/pgCluster.ts).
// Shard b stopped, then killed (-9), then reached through a proxy that drops every
// packet (a database that went silent): only b's show answers 503 SHARD_UNAVAILABLE,
// within 2 s, while a's keeps selling, and b sells again once back. The control database
// stopped: a show whose placement this instance has cached keeps taking holds and
// bookings; signing in fails clearly, fast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type PgCluster } from '../support/pgCluster.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, expectStatus, newKey, startService, until } from '../bookings/helpers.js';
import type { TestService } from '../support/service.js';
import { start as startProxy, type BlackholeProxy } from '../support/blackholeProxy.js';

let control: PgCluster | null = null;
let a: PgCluster | null = null;
let b: PgCluster | null = null;
/** Shard b is reached through it: passing, or silently dropping every packet. */
let bProxy: BlackholeProxy | null = null;
let t: TestService | undefined;
let buyer: Buyer;
let onA = '';
let onB = '';

const hold = (showId: string, seats: string[]) => t!.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token);

/** The answer and how long it took. */
async function timed<T>(run: () => Promise<T>): Promise<{ r: T; ms: number }> {
  const started = performance.now();
  const r = await run();
  return { r, ms: Math.round(performance.now() - started) };
}

beforeAll(async () => {
  [control, a, b] = await Promise.all([startCluster(), startCluster(), startCluster()]);
  bProxy = await startProxy(b.port);
  const bUrl = new URL(b.url());
  bUrl.port = String(bProxy.port);
  t = await startService({
    payments: {},
    config: {
      databaseUrl: control.url(),
      shards: [{ name: 'a', url: a.url() }, { name: 'b', url: bUrl.toString() }],
      placementRefreshMs: 200,
      // The production bounds: a database that went away is a 503 within 2 s.
      dbBounds: { connectMs: 1000, queueMs: 3000, statementMs: 1000, backgroundStatementMs: 5000 },
    },
  });
  const venue = await t.http.post('/v1/admin/venues', { name: 'Outage Hall', city: 'Splitville' }, t.adminToken);
  const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'One', layout: { rows: [{ row: 'A', seats: 20, tier: 'standard' }] } }, t.adminToken);
  const event = await t.http.post('/v1/admin/events', { title: 'Outage Film' }, t.adminToken);
  const show = async (shard: string) => {
    const r = await t!.http.post('/v1/admin/shows', {
      event_id: event.body.id, hall_id: hall.body.id, currency: 'EUR', price_tiers: { standard: 1000 },
      starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(), shard,
    }, t!.adminToken);
    expectStatus(r, 201);
    return r.body.id as string;
  };
  [onA, onB] = [await show('a'), await show('b')];
  [buyer] = await registerBuyers(t, 1) as [Buyer];
  // Both placements cached by this instance.
  expectStatus(await hold(onA, ['A1']), 201);
  expectStatus(await hold(onB, ['A1']), 201);
}, 300_000);

afterAll(async () => {
  await closeService(t);
  await bProxy?.close();
  await Promise.all([control?.destroy(), a?.destroy(), b?.destroy()]);
}, 120_000);

describe('shards by show, when a database goes away', () => {
  const outages = {
    stop: { says: 'shut down', seats: ['A2', 'A3'], back: 'A6', begin: () => b!.stop(), end: () => b!.start() },
    kill: { says: 'killed (-9)', seats: ['A4', 'A5'], back: 'A7', begin: () => b!.kill(), end: () => b!.start() },
    silent: { says: 'dropping every packet', seats: ['A12', 'A13'], back: 'A14', begin: () => bProxy!.mode('blackhole'), end: () => bProxy!.mode('pass') },
  } as const;
  for (const how of ['stop', 'kill', 'silent'] as const) {
    const o = outages[how];
    it(`shard b ${o.says}: b's show answers 503 SHARD_UNAVAILABLE within 2 s, a's sells on, b sells again once back`, async () => {
      await o.begin();
      try {
        for (const seat of o.seats) {
          const refused = await timed(() => hold(onB, [seat]));
          expect(refused.r.status).toBe(503);
          expect(refused.r.body.code).toBe('SHARD_UNAVAILABLE');
          expect(refused.r.body.shard).toBe('b');
          expect(Number(refused.r.headers['retry-after'])).toBeGreaterThan(0);
          expect(refused.ms).toBeLessThan(2000);
          const sold = await timed(() => hold(onA, [seat]));
          expectStatus(sold.r, 201);
          expect(sold.ms).toBeLessThan(1000);
          console.log(`shard b ${how}: b's show 503 SHARD_UNAVAILABLE in ${refused.ms} ms; a's show held in ${sold.ms} ms`);
        }
        const ready = await t!.http.get('/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body.shards_down).toEqual(['b']);
      } finally {
        await o.end();
      }
      await until('b sells again', async () => (await hold(onB, [o.back])).status === 201, 20_000);
    });
  }

  it('the control database stopped: a show with a cached placement keeps taking holds and bookings; sign-in fails clearly within 2 s', async () => {
    await control!.stop();
    try {
      const held = await timed(() => hold(onA, ['A10', 'A11']));
      expectStatus(held.r, 201);
      const paid = await t!.http.post('/v1/bookings', { hold_id: held.r.body.hold_id, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': newKey('outage') });
      expectStatus(paid, 201);
      expect(paid.body.status).toBe('confirmed');
      const signIn = await timed(() => t!.http.post('/v1/sessions', { email: buyer.email, password: 'password-123' }));
      expect(signIn.r.status).toBe(503);
      expect(signIn.ms).toBeLessThan(2000);
      expect((await t!.http.get('/readyz')).status).toBe(503);
      console.log(`control stopped: a cached show held in ${held.ms} ms and paid (${paid.body.status}); sign-in ${signIn.r.status} in ${signIn.ms} ms`);
    } finally {
      await control!.start();
    }
    await until('signing in again', async () => (await t!.http.post('/v1/sessions', { email: buyer.email, password: 'password-123' })).status === 200, 20_000);
  });
});
