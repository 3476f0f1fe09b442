// Two service instances on one Redis and one PostgreSQL serve one queue: unique
// positions across both, one `serving`, tokens of either valid on the other, and
// the admission rate is the rate, not twice it, although both instances tick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Service } from '../../src/service.js';
import { startSecondInstance, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import type { HttpClient } from '../support/http.js';
import { redisPrefix } from '../support/clients.js';
import { signUserToken, tokenSecret } from '../http/helpers.js';
import { newKey, until } from '../bookings/helpers.js';
import { roomConfig } from './helpers.js';

const redis = redisPrefix();
let a: TestService;
let second: Service;
let b: HttpClient;

beforeAll(async () => {
  a = await startTestService({ payments: {}, config: roomConfig(redis.prefix, { admitPerMinute: 600, controlMs: 0 }) }); // the fixed rate: what is shared is under test
  ({ service: second, http: b } = await startSecondInstance(a)); // the same database and Redis prefix
}, 60_000);
afterAll(async () => {
  await second?.close();
  await a?.close();
  await redis.cleanUp();
});

describe('two instances on one Redis and one PostgreSQL', () => {
  it('give unique positions across both, share one serving, and admit at the rate, not twice it', async () => {
    const show = await createShow(a, { waiting_room: true });
    await a.http.post(`/v1/admin/shows/${show.showId}/queue`, { action: 'pause' }, a.adminToken);
    const key = await tokenSecret(a.service.ctx.db);
    const tokens = await Promise.all(Array.from({ length: 400 }, (_, i) => signUserToken(key, { sub: `usr_two_${i}_${randomBytes(4).toString('hex')}` })));
    const answers = await Promise.all(tokens.map((tok, i) => (i % 2 ? b : a.http).post(`/v1/shows/${show.showId}/queue`, {}, tok)));
    expect(answers.every((r) => r.status === 201)).toBe(true);
    const positions = answers.map((r) => r.body.position as number);
    expect(new Set(positions).size).toBe(400);
    expect(Math.max(...positions)).toBe(400);

    const started = Date.now();
    await a.http.post(`/v1/admin/shows/${show.showId}/queue`, { action: 'resume' }, a.adminToken);
    await new Promise((r) => setTimeout(r, 3000));
    const [sa, sb] = await Promise.all([a.http.get(`/v1/shows/${show.showId}/queue`), b.get(`/v1/shows/${show.showId}/queue`)]);
    const elapsed = (Date.now() - started) / 1000;
    // 600 a minute is 10 a second; two instances ticking must not make it 20.
    console.log(`two instances: serving ${sa.body.serving} / ${sb.body.serving} after ${elapsed.toFixed(1)} s at 10/s`);
    expect(Math.abs(sa.body.serving - sb.body.serving)).toBeLessThanOrEqual(10); // each may answer from its 0.5 s cache
    expect(sa.body.serving).toBeGreaterThanOrEqual(25);
    expect(sa.body.serving).toBeLessThanOrEqual(Math.ceil(elapsed * 10) + 1);
  });

  it('takes a queue token from one to admit on the other, and its admission on both', async () => {
    const show = await createShow(a, { waiting_room: true });
    const [buyer] = await registerBuyers(a, 1);
    const joined = await a.http.post(`/v1/shows/${show.showId}/queue`, {}, buyer!.token);
    const admitted = await until('admitted on the other instance', async () => {
      const r = await b.post(`/v1/shows/${show.showId}/queue/admit`, { queue_token: joined.body.queue_token }, buyer!.token);
      return r.status === 200 ? r : null;
    }, 10_000, 50);
    const admission = { 'admission-token': admitted.body.admission_token as string };
    const hold = await a.http.post(`/v1/shows/${show.showId}/holds`, { seats: ['A1'] }, buyer!.token, admission);
    expect(hold.status, hold.text).toBe(201);
    const hold2 = await b.post(`/v1/shows/${show.showId}/holds`, { seats: ['A2'] }, buyer!.token, admission);
    expect(hold2.status, hold2.text).toBe(201);
    const paid = await b.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, buyer!.token, { 'idempotency-key': newKey('two'), ...admission });
    expect(paid.status, paid.text).toBe(201);
    expect(['confirmed', 'pending']).toContain(paid.body.status);
  });
});
