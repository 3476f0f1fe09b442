// The demo's headline show, the 60,000-seat stadium with a waiting room, bought
// by following the API alone: find it, join, ask to be admitted, hold with the
// Admission-Token, book. On the in-process queue store (no REDIS_URL), as `npm start` runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers } from '../support/catalog.js';
import { seedDemoCatalog } from '../../src/app/demoCatalog.js';
import { newKey } from '../bookings/helpers.js';
import { expectProblem } from '../support/problems.js';
import { joinAndAdmit, roomConfig } from './helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ payments: {}, config: roomConfig(null, { admitPerMinute: 600 }) });
  await seedDemoCatalog(t.service.ctx);
}, 120_000);
afterAll(async () => { await t?.close(); });

describe('the demo stadium', () => {
  it('can be bought through its waiting room', async () => {
    expect(t.service.ctx.room.store.kind).toBe('memory');
    const shows = await t.http.get('/v1/shows?city=Lisbon');
    const stadium = shows.body.shows.find((s: { waiting_room: boolean }) => s.waiting_room);
    expect(stadium, 'the demo has a waiting-room show in Lisbon').toBeDefined();
    const [buyer] = await registerBuyers(t, 1);

    expectProblem(await t.http.post(`/v1/shows/${stadium.id}/holds`, { seats: ['101-A5'] }, buyer!.token), 403, 'QUEUE_REQUIRED');
    const { admission, position } = await joinAndAdmit(t.http, stadium.id, buyer!.token);
    expect(position).toBe(1);
    const headers = { 'admission-token': admission };
    const hold = await t.http.post(`/v1/shows/${stadium.id}/holds`, { seats: ['101-A5', '101-A6'] }, buyer!.token, headers);
    expect(hold.status, hold.text).toBe(201);
    expect(hold.body).toMatchObject({ amount: 19_000, currency: 'EUR' });
    const booked = await t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, buyer!.token, { 'idempotency-key': newKey('stadium'), ...headers });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ status: 'confirmed', seats: ['101-A5', '101-A6'] });
    const map = await t.http.get(`/v1/shows/${stadium.id}/seats`);
    expect(map.status, map.text.slice(0, 300)).toBe(200);
    expect(map.body.seats.filter((s: { status: string }) => s.status === 'booked').map((s: { seat: string }) => s.seat)).toEqual(['101-A5', '101-A6']);
  }, 60_000);
});
