// POST /v1/admin/synthetic-buyers (API.md, Accounts): only with
// BOXOFFICE_SYNTHETIC_BUYERS=1, admin only; buyers marked synthetic, no password,
// each with a token that works on the purchase path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { expectProblem } from './helpers.js';

const ROUTE = '/v1/admin/synthetic-buyers';

describe('synthetic buyers, turned off (the default)', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService({ sweeper: false }); });
  afterAll(async () => { await t?.close(); });

  it('the route does not exist: 404 NOT_FOUND, even for an admin', async () => {
    expect(loadConfig({}).syntheticBuyers).toBe(false);
    expect(loadConfig({ BOXOFFICE_SYNTHETIC_BUYERS: '1' }).syntheticBuyers).toBe(true);
    expectProblem(await t.http.post(ROUTE, { count: 1, label: 'x' }, t.adminToken), 404, 'NOT_FOUND');
  });
});

describe('synthetic buyers, turned on', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService({ sweeper: false, config: { syntheticBuyers: true } }); });
  afterAll(async () => { await t?.close(); });

  it('makes that many buyers under the label, each token good for a hold; they cannot sign in', async () => {
    const r = await t.http.post(ROUTE, { count: 25, label: 'rehearsal-1' }, t.adminToken);
    expect(r.status, r.text).toBe(201);
    const buyers = r.body.buyers as { user_id: string; token: string }[];
    expect(buyers).toHaveLength(25);
    expect(new Set(buyers.map((b) => b.user_id)).size).toBe(25);
    const rows = await t.service.ctx.db.query<{ n: number; label: string; role: string }>(
      `select count(*)::int as n, min(synthetic_label) as label, min(role) as role from users where id = any($1::text[])`, [buyers.map((b) => b.user_id)]);
    expect(rows.rows[0]).toEqual({ n: 25, label: 'rehearsal-1', role: 'user' });

    const show = await createShow(t, { rows: 1, seatsPerRow: 5 });
    const hold = await t.http.post(`/v1/shows/${show.showId}/holds`, { seats: [show.seats[0]] }, buyers[0]!.token);
    expect(hold.status, hold.text).toBe(201);

    const email = `${buyers[1]!.user_id}@synthetic.invalid`;
    for (const password of ['', '!', 'not-a-real-password', 'anything-at-all']) {
      const s = await t.http.post('/v1/sessions', { email, password: password.padEnd(8, 'x') });
      expectProblem(s, 401, 'INVALID_CREDENTIALS');
    }
  });

  it('refuses a count out of 1..10000 or a missing label (400), a buyer (403), no token (401)', async () => {
    for (const body of [{ count: 0, label: 'x' }, { count: 10_001, label: 'x' }, { count: 2 }, { count: 2, label: '' }, { count: 1.5, label: 'x' }]) {
      expectProblem(await t.http.post(ROUTE, body, t.adminToken), 400, 'VALIDATION_FAILED');
    }
    const [buyer] = await registerBuyers(t, 1);
    expectProblem(await t.http.post(ROUTE, { count: 1, label: 'x' }, buyer!.token), 403, 'FORBIDDEN');
    expectProblem(await t.http.post(ROUTE, { count: 1, label: 'x' }), 401, 'UNAUTHENTICATED');
  });

  it('makes the contract\'s 10,000 in one request', async () => {
    const started = performance.now();
    const r = await t.http.post(ROUTE, { count: 10_000, label: 'rehearsal-big' }, t.adminToken);
    expect(r.status).toBe(201);
    expect(r.body.buyers).toHaveLength(10_000);
    console.log(`10,000 synthetic buyers in ${Math.round(performance.now() - started)} ms`);
  }, 60_000);
});
