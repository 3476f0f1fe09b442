// A token outlives its account (deleted, or a database reset under a fixed
// secret): the routes that read the account answer 401 UNAUTHENTICATED, never a
// 200 that treats a stranger as a user with no bookings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers } from '../support/catalog.js';
import { expectProblem, signUserToken, tokenSecret } from './helpers.js';

let t: TestService;
beforeAll(async () => { t = await startTestService({ sweeper: false }); });
afterAll(async () => { await t?.close(); });

describe('a valid token whose account no longer exists', () => {
  it('GET /v1/bookings answers 401 UNAUTHENTICATED, for a deleted account and one that never existed', async () => {
    const [gone, kept] = await registerBuyers(t, 2);
    // The token is verified and cached before the account goes.
    expect((await t.http.get('/v1/bookings', gone!.token)).status).toBe(200);
    await t.service.ctx.db.query('delete from users where id = $1', [gone!.userId]);
    expectProblem(await t.http.get('/v1/bookings', gone!.token), 401, 'UNAUTHENTICATED');

    const stranger = await signUserToken(await tokenSecret(t.service.ctx.db), { sub: 'usr_never_registered' });
    expectProblem(await t.http.get('/v1/bookings', stranger), 401, 'UNAUTHENTICATED');

    const mine = await t.http.get('/v1/bookings', kept!.token);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ bookings: [] });
  });

  it('an admin route answers 401 UNAUTHENTICATED once the admin account is gone', async () => {
    const [admin] = await registerBuyers(t, 1);
    await t.service.ctx.db.query("update users set role = 'admin' where id = $1", [admin!.userId]);
    const venue = { name: 'Gone Hall', city: 'Nowhere' };
    expect((await t.http.post('/v1/admin/venues', venue, admin!.token)).status).toBe(201);
    await t.service.ctx.db.query('delete from users where id = $1', [admin!.userId]);
    expectProblem(await t.http.post('/v1/admin/venues', venue, admin!.token), 401, 'UNAUTHENTICATED');
  });
});
