// The waiting list (API.md "Waiting list"): seats freed by a release, a cancellation
// and an expiry reach the first entry that fits, in order of position, as a hold of
// `count` adjacent seats; a lapsed offer moves on; a waiting-room show's offer is paid
// without an admission token; the join's refusals. Real PostgreSQL, the service's own
// workers running (the offer worker takes what time frees), the DB clock shifted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shiftClock } from '../../src/db/clock.js';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, holdSeats, newKey, postBooking, retrying, startService, until,
} from '../bookings/helpers.js';

describe('waiting list offers', () => {
  let t: TestService;
  let buyers: Buyer[];

  beforeAll(async () => {
    t = await startService({ payments: {} });
    buyers = await retrying('registering buyers', () => registerBuyers(t, 8));
  }, 60_000);
  afterAll(async () => { await closeService(t); });

  const join = (showId: string, b: Buyer, count: number) => t.http.post(`/v1/shows/${showId}/waitlist`, { count }, b.token);
  const me = async (showId: string, b: Buyer) => (await t.http.get(`/v1/shows/${showId}/waitlist/me`, b.token)).body as {
    position: number; count: number; status: string; hold_id?: string; expires_at?: string;
  };
  const offered = (showId: string, b: Buyer) => until(`an offer for ${b.email}`, async () => {
    const e = await me(showId, b);
    return e.status === 'offered' ? e : null;
  }, 15_000, 50);
  const holdOf = async (holdId: string, b: Buyer) => (await t.http.get(`/v1/holds/${holdId}`, b.token)).body as { seats: string[]; status: string; expires_at: string };
  const mapStatus = async (showId: string) => Object.fromEntries(
    ((await t.http.get(`/v1/shows/${showId}/seats`)).body.seats as { seat: string; status: string }[]).map((s) => [s.seat, s.status]));

  it('joins only a sold-out show; a repeat keeps the place; a stranger is not on it', async () => {
    const [x, w1, w2] = buyers as [Buyer, Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 3, per_user_limit: 3 });
    expectProblem(await join(showId, w1, 2), 409, 'SEATS_AVAILABLE');
    await holdSeats(t, showId, ['A2'], x.token);
    // A1 and A3 are free but not adjacent: two are not available, one is.
    expectProblem(await join(showId, w1, 1), 409, 'SEATS_AVAILABLE');
    const first = await join(showId, w1, 2);
    expectStatus(first, 201);
    expect(first.body).toEqual({ position: 1, count: 2, status: 'waiting' });
    expectProblem(await join(showId, w2, 4), 400, 'VALIDATION_FAILED');
    expectStatus(await join(showId, w2, 2), 201);
    const again = await join(showId, w1, 3);
    expectStatus(again, 200);
    expect(again.body).toEqual({ position: 1, count: 3, status: 'waiting' });
    expectProblem(await t.http.get(`/v1/shows/${showId}/waitlist/me`, x.token), 404, 'NOT_FOUND');
    expectProblem(await join('show_nope', w1, 1), 404, 'NOT_FOUND');
  });

  it('a release goes to the first entry that fits in the same transaction: a buyer racing for the seats never gets them', async () => {
    const [x, w1, w2, w3, z] = buyers as [Buyer, Buyer, Buyer, Buyer, Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 2, seatsPerRow: 2, per_user_limit: 4 });
    const holdX = await holdSeats(t, showId, ['A1', 'A2'], x.token);
    await holdSeats(t, showId, ['B1', 'B2'], z.token);
    expectStatus(await join(showId, w1, 3), 201); // does not fit two seats: passed over, keeps waiting
    expectStatus(await join(showId, w2, 2), 201);
    expectStatus(await join(showId, w3, 2), 201);
    // Z hammers A1+A2 while X releases them: with the offer in the release's own
    // transaction the seats are never free for anyone but the list.
    let racing = true;
    const answers: number[] = [];
    const racer = (async () => {
      while (racing) answers.push((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2'] }, buyers[5]!.token)).status);
    })();
    await until('a few racing claims', async () => answers.length >= 3, 10_000, 10);
    expectStatus(await t.http.delete(`/v1/holds/${holdX}`, x.token), 204);
    const countAtRelease = answers.length;
    await until('more racing claims after the release', async () => answers.length >= countAtRelease + 10, 10_000, 10);
    racing = false;
    await racer;
    expect(answers.filter((s) => s !== 409), `claims racing the release: ${answers.join(',')}`).toEqual([]);

    const e2 = await me(showId, w2);
    expect(e2).toMatchObject({ position: 2, count: 2, status: 'offered' });
    const hold = await holdOf(e2.hold_id!, w2);
    expect(hold).toMatchObject({ seats: ['A1', 'A2'], status: 'active', expires_at: e2.expires_at });
    expect((await me(showId, w1)).status).toBe('waiting');
    expect((await me(showId, w3)).status).toBe('waiting');
    const map = await mapStatus(showId);
    expect([map.A1, map.A2]).toEqual(['held', 'held']);
  });

  it('a cancelled booking goes to the first entry that fits; expired seats go by the offer worker; a lapsed offer moves on', async () => {
    const [y, w1, w2, w3, x] = buyers as [Buyer, Buyer, Buyer, Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 2, seatsPerRow: 2, per_user_limit: 2, hold_ttl_seconds: 60 });
    const booking = await confirmedBooking(t, showId, ['B1', 'B2'], y.token);
    await holdSeats(t, showId, ['A1', 'A2'], x.token);
    expectStatus(await join(showId, w1, 2), 201);
    expectStatus(await join(showId, w2, 2), 201);
    expectStatus(await join(showId, w3, 1), 201);

    // Cancellation: in its own transaction, to the first in line.
    expectStatus(await t.http.post(`/v1/bookings/${booking.booking_id}/cancel`, {}, y.token), 200);
    const e1 = await me(showId, w1);
    expect(e1.status).toBe('offered');
    expect((await holdOf(e1.hold_id!, w1)).seats).toEqual(['B1', 'B2']);

    // Expiry: X's hold ends; the worker offers A1+A2 to W2 (W3 is behind).
    await shiftClock(t.service.ctx.db, 61);
    // W1's offer (made before the shift, 60 s) lapsed too: B1+B2 move on to W3 (count 1 gets B1) — and A1+A2 to W2.
    const e2 = await offered(showId, w2);
    const e3 = await offered(showId, w3);
    expect((await me(showId, w1)).status).toBe('lapsed');
    const seats2 = (await holdOf(e2.hold_id!, w2)).seats;
    const seats3 = (await holdOf(e3.hold_id!, w3)).seats;
    expect(seats2).toEqual(['A1', 'A2']);
    expect(seats3).toEqual(['B1']);
    // W2 pays the offer like any hold: booked.
    const paid = await postBooking(t, { hold_id: e2.hold_id, payment_method: 'pm_card_visa' }, w2.token, newKey('offer'));
    expectStatus(paid, 201);
    expect(paid.body.status).toBe('confirmed');
    expect((await me(showId, w2)).status).toBe('booked');
    // Nobody waits any more: B2 is free on the map.
    await until('B2 on the map as available', async () => (await mapStatus(showId)).B2 === 'available', 5000, 50);
  });

  it("an entry whose buyer would pass the per-user limit is passed over and keeps its place until it fits again", async () => {
    const [x, w, v] = buyers as [Buyer, Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 3, per_user_limit: 2 });
    const holdW = await holdSeats(t, showId, ['A1'], w.token);
    const holdX = await holdSeats(t, showId, ['A2', 'A3'], x.token);
    expectStatus(await join(showId, w, 2), 201);
    expectStatus(await join(showId, v, 2), 201);
    // W holds A1: two more would make three, over the limit of 2. V, behind W, gets them.
    expectStatus(await t.http.delete(`/v1/holds/${holdX}`, x.token), 204);
    const ev = await me(showId, v);
    expect(ev.status).toBe('offered');
    expect((await holdOf(ev.hold_id!, v)).seats).toEqual(['A2', 'A3']);
    expect(await me(showId, w)).toMatchObject({ position: 1, status: 'waiting' });
    // W lets A1 go (one seat free: W's two do not fit); V leaves the offer: W, within the limit again, is first.
    expectStatus(await t.http.delete(`/v1/holds/${holdW}`, w.token), 204);
    expect((await me(showId, w)).status).toBe('waiting');
    expectStatus(await t.http.delete(`/v1/shows/${showId}/waitlist/me`, v.token), 204);
    const ew = await me(showId, w);
    expect(ew.status).toBe('offered');
    expect((await holdOf(ew.hold_id!, w)).seats).toHaveLength(2);
  });

  it('leaving with an open offer gives it to the next in line', async () => {
    const [x, w1, w2] = buyers as [Buyer, Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 1, per_user_limit: 1 });
    const holdX = await holdSeats(t, showId, ['A1'], x.token);
    expectStatus(await join(showId, w1, 1), 201);
    expectStatus(await join(showId, w2, 1), 201);
    expectStatus(await t.http.delete(`/v1/holds/${holdX}`, x.token), 204);
    const e1 = await me(showId, w1);
    expect(e1.status).toBe('offered');
    expectStatus(await t.http.delete(`/v1/shows/${showId}/waitlist/me`, w1.token), 204);
    expectStatus(await t.http.delete(`/v1/shows/${showId}/waitlist/me`, w1.token), 204);
    expect((await me(showId, w1)).status).toBe('left');
    expect((await holdOf(e1.hold_id!, w1)).status).toBe('released');
    expect((await me(showId, w2)).status).toBe('offered');
  });

  it('a waiting entry leaves without waiting for the list: an offer pass holding it then passes it over', async () => {
    const [x, w1, w2] = buyers as [Buyer, Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 1, per_user_limit: 1 });
    const holdX = await holdSeats(t, showId, ['A1'], x.token);
    expectStatus(await join(showId, w1, 1), 201);
    expectStatus(await join(showId, w2, 1), 201);
    // Another transaction holds the list's lock, as a join or an offer pass does.
    await t.service.ctx.db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(hashtextextended('boxoffice.waitlist/' || $1, 0))`, [showId]);
      const started = performance.now();
      // Without the fast path the leave waits for the lock until its lock_timeout refuses it.
      expectStatus(await t.http.delete(`/v1/shows/${showId}/waitlist/me`, w1.token), 204);
      expect(performance.now() - started).toBeLessThan(1000);
      expect((await me(showId, w1)).status).toBe('left');
    });
    expectStatus(await t.http.delete(`/v1/holds/${holdX}`, x.token), 204);
    expect((await me(showId, w1)).status).toBe('left');
    expect((await me(showId, w2)).status).toBe('offered');
  });

  it("a waiting-room show's offer is paid without an admission token", async () => {
    const [x, w1] = buyers as [Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 2, per_user_limit: 2 });
    const holdX = await holdSeats(t, showId, ['A1', 'A2'], x.token);
    expectStatus(await t.http.patch(`/v1/admin/shows/${showId}`, { waiting_room: true }, t.adminToken), 200);
    expectStatus(await join(showId, w1, 2), 201);
    // The control: a hold of this show made by a claim needs an admission to be paid.
    expectProblem(await postBooking(t, { hold_id: holdX, payment_method: 'pm_card_visa' }, x.token, newKey('no-admission')), 403, 'QUEUE_REQUIRED');
    expectStatus(await t.http.delete(`/v1/holds/${holdX}`, x.token), 204);
    const e1 = await me(showId, w1);
    expect(e1.status).toBe('offered');
    const paid = await postBooking(t, { hold_id: e1.hold_id, payment_method: 'pm_card_visa' }, w1.token, newKey('offer-wr'));
    expectStatus(paid, 201);
    expect(paid.body.status).toBe('confirmed');
  });

  it('answers 403 SALE_CLOSED once the show has started', async () => {
    const [x, w1] = buyers as [Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 1, starts_at: new Date(Date.now() + 3600_000).toISOString() });
    await holdSeats(t, showId, ['A1'], x.token);
    await shiftClock(t.service.ctx.db, 3700);
    try {
      expectProblem(await join(showId, w1, 1), 403, 'SALE_CLOSED');
    } finally {
      await shiftClock(t.service.ctx.db, -3700);
    }
  });
});
