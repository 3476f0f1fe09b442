// Admissions cannot be banked: a served place that does not ask for its admission
// within the grace period after its turn came lapses for good (403
// ADMISSION_LAPSED; joining again queues at the back), and an admission asked for
// again is the same admission, never a later expiry; a pause does not use up the
// grace period. Over HTTP, on Redis and in process.
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { redisPrefix } from '../support/clients.js';
import { expectProblem } from '../support/problems.js';
import { sleep, until } from '../bookings/helpers.js';
import { roomConfig } from './helpers.js';

const redis = redisPrefix();
const services: TestService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  await redis.cleanUp();
});

describe.each([['redis', redis.prefix], ['memory', null]] as const)('admissions (%s store)', (_kind, prefix) => {
  it('lapse when not asked for within the grace period, and are the same admission when asked for again', async () => {
    const t = await startTestService({ config: roomConfig(prefix, { graceSeconds: 1, controlMs: 0 }) });
    services.push(t);
    const show = await createShow(t, { waiting_room: true });
    const [prompt, late] = await registerBuyers(t, 2);
    const admit = (queueToken: string, token: string) => t.http.post(`/v1/shows/${show.showId}/queue/admit`, { queue_token: queueToken }, token);

    const a = (await t.http.post(`/v1/shows/${show.showId}/queue`, {}, prompt!.token)).body;
    const b = (await t.http.post(`/v1/shows/${show.showId}/queue`, {}, late!.token)).body;
    expect([a.position, b.position]).toEqual([1, 2]);
    await until('both served', async () => (await t.http.get(`/v1/shows/${show.showId}/queue`)).body.serving >= 2, 5000, 20);

    const first = await admit(a.queue_token, prompt!.token);
    expect(first.status, first.text).toBe(200);
    // Past the grace period (1 s) and past a second boundary of `exp`: the late one lapsed; the prompt one is still admitted.
    await sleep(1600);
    const again = await admit(a.queue_token, prompt!.token);
    expect(again.status, again.text).toBe(200);
    expect(again.body.expires_at).toBe(first.body.expires_at);
    expect(again.body.admission_token).toBe(first.body.admission_token);
    expect((await t.http.post(`/v1/shows/${show.showId}/queue`, {}, prompt!.token)).body.position).toBe(1);

    const lapsed = await admit(b.queue_token, late!.token);
    expectProblem(lapsed, 403, 'ADMISSION_LAPSED');
    // Joining again queues at the back, as a new entry: the old queue token is no longer this account's place.
    const rejoined = (await t.http.post(`/v1/shows/${show.showId}/queue`, {}, late!.token)).body;
    expect(rejoined.position).toBe(3);
    expectProblem(await admit(b.queue_token, late!.token), 400, 'TOKEN_INVALID');
    const admitted = await until('the new place served', async () => {
      const r = await admit(rejoined.queue_token, late!.token);
      return r.status === 200 ? r : null;
    }, 5000, 50);
    expect(admitted.body.admission_token).toEqual(expect.any(String));
    expect((await t.http.post(`/v1/shows/${show.showId}/queue`, {}, late!.token)).body.position).toBe(3);
  }, 30_000);

  it('do not lapse while the room is paused: the grace period stops with it', async () => {
    const t = await startTestService({ config: roomConfig(prefix, { graceSeconds: 3, controlMs: 0 }) });
    services.push(t);
    const show = await createShow(t, { waiting_room: true });
    const [buyer] = await registerBuyers(t, 1);
    const queue = `/v1/admin/shows/${show.showId}/queue`;
    const admit = (queueToken: string) => t.http.post(`/v1/shows/${show.showId}/queue/admit`, { queue_token: queueToken }, buyer!.token);

    const joined = (await t.http.post(`/v1/shows/${show.showId}/queue`, {}, buyer!.token)).body;
    await until('served', async () => (await t.http.get(`/v1/shows/${show.showId}/queue`)).body.serving >= 1, 5000, 20);
    expect((await t.http.post(queue, { action: 'pause' }, t.adminToken)).status).toBe(200);
    await sleep(3200); // longer than the grace period, the room ticking all along
    expectProblem(await admit(joined.queue_token), 403, 'NOT_YET_ADMITTED');
    expect((await t.http.post(queue, { action: 'resume' }, t.adminToken)).status).toBe(200);
    // Past the instance's half-second copy of the room's state (it still says paused), and many ticks
    // (50 ms) at the rate again: a lapse would have been counted by now.
    await sleep(600);
    const admitted = await admit(joined.queue_token);
    expect(admitted.status, admitted.text).toBe(200);
    expect((await t.http.get(queue, t.adminToken)).body.controller.no_shows).toBe(0);
  }, 60_000); // a service of its own: starting one took 12-30 s on the loaded test machine
});
