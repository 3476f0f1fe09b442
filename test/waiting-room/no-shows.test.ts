// An admission nobody uses lapses: a served buyer who makes no hold within the
// grace period is counted a no-show (its slot goes to the next in line), while one
// who came to the purchase path — even to lose a seat race — is not.
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { redisPrefix } from '../support/clients.js';
import { until } from '../bookings/helpers.js';
import { joinAndAdmit, roomConfig } from './helpers.js';

const redis = redisPrefix();
let t: TestService;
afterAll(async () => {
  await t?.close();
  await redis.cleanUp();
});

describe('no-shows', () => {
  it('counts the served who made no hold within the grace period, not those who came', async () => {
    t = await startTestService({ config: roomConfig(redis.prefix, { graceSeconds: 3, controlMs: 0 }) });
    const show = await createShow(t, { waiting_room: true });
    const [came, lost, absent] = await registerBuyers(t, 3);
    const a = await joinAndAdmit(t.http, show.showId, came!.token);
    const b = await joinAndAdmit(t.http, show.showId, lost!.token);
    const joined = await t.http.post(`/v1/shows/${show.showId}/queue`, {}, absent!.token);
    expect(joined.body.position).toBe(3);
    expect((await t.http.post(`/v1/shows/${show.showId}/holds`, { seats: ['A1'] }, came!.token, { 'admission-token': a.admission })).status).toBe(201);
    // Losing a seat race is coming all the same.
    expect((await t.http.post(`/v1/shows/${show.showId}/holds`, { seats: ['A1'] }, lost!.token, { 'admission-token': b.admission })).status).toBe(409);
    const view = await until('the grace period to pass', async () => {
      const v = await t.http.get(`/v1/admin/shows/${show.showId}/queue`, t.adminToken);
      return v.body.controller.no_shows > 0 ? v.body : null;
    }, 15_000, 100);
    await new Promise((r) => setTimeout(r, 1000));
    const after = (await t.http.get(`/v1/admin/shows/${show.showId}/queue`, t.adminToken)).body;
    expect(view.controller.no_shows).toBe(1);
    expect(after.controller.no_shows).toBe(1); // position 3, served and never seen
    expect(after).toMatchObject({ serving: 3, waiting: 0, admitted: 2 });
  }, 30_000);
});
