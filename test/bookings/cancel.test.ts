// Cancellation (API.md "Bookings and payment", DESIGN.md invariant 6): a
// cancellation refunds at most once, also when two arrive together; a repeat
// answers the same and refunds nothing more; the seats are free at once; the
// window closes cancel_until_minutes_before the start (database clock); only a
// confirmed booking of the caller can be cancelled. "Refunded" is judged by the
// simulator's own books.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { HttpAnswer } from '../support/http.js';
import { shiftClock } from '../../src/db/clock.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, holdSeats, newKey, outboxSettled, paymentIntentsFor, postBooking, refundsFor,
  retrying, startService, until,
} from './helpers.js';

describe('POST /v1/bookings/{id}/cancel', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;
  let bob: Buyer;
  let next = 0;
  const take = (n: number) => { const s = seats.slice(next, next + n); next += n; return s; };

  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 4, seatsPerRow: 20, per_user_limit: 40 })));
    [alice, bob] = (await retrying('registering buyers', () => registerBuyers(t, 2))) as [Buyer, Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const cancel = (id: string, token: string = alice.token) => t.http.post(`/v1/bookings/${id}/cancel`, {}, token);
  const refundRows = async () => Number((await t.service.ctx.db.query<{ n: string }>("select count(*) as n from outbox where topic = 'refund.create'")).rows[0]!.n);

  /** A cancel answer: 200, the booking cancelled with its one refund of the full amount. */
  function expectCancelled(r: HttpAnswer, bookingId: string, amount: number) {
    expectStatus(r, 200);
    expect(r.body).toMatchObject({ booking_id: bookingId, status: 'cancelled', refund: { amount } });
    expect(['pending', 'succeeded']).toContain(r.body.refund.status);
  }

  it('two cancels at once refund once (20 bookings); the seats are free at once; a later repeat answers the same and refunds nothing more', async () => {
    const mySeats = take(20);
    const bookings: { booking_id: string; amount: number }[] = [];
    for (let i = 0; i < mySeats.length; i += 5) {
      const made = await Promise.all(mySeats.slice(i, i + 5).map((s) => confirmedBooking(t, showId, [s], alice.token)));
      bookings.push(...made.map((b) => ({ booking_id: b.booking_id, amount: b.amount as number })));
    }
    const refundRowsBefore = await refundRows();

    const pairs = await Promise.all(bookings.map((b) => Promise.all([cancel(b.booking_id), cancel(b.booking_id)])));
    for (const [i, [c1, c2]] of pairs.entries()) {
      const b = bookings[i]!;
      expectCancelled(c1, b.booking_id, b.amount);
      expectCancelled(c2, b.booking_id, b.amount);
      const { refund: r1, ...rest1 } = c1.body;
      const { refund: r2, ...rest2 } = c2.body;
      expect(rest2).toEqual(rest1);
      expect(r2.amount).toBe(r1.amount);
    }

    // The seats are available at once: on the map, and to another buyer.
    const map = await t.http.get(`/v1/shows/${showId}/seats`);
    expectStatus(map, 200);
    const status = new Map<string, string>(map.body.seats.map((s: { seat: string; status: string }) => [s.seat, s.status]));
    expect(mySeats.filter((s) => status.get(s) !== 'available')).toEqual([]);
    const bobsHold = await t.http.post(`/v1/shows/${showId}/holds`, { seats: mySeats }, bob.token);
    expectStatus(bobsHold, 201);

    // Exactly one refund row was written per booking, and the outbox delivers each once.
    expect(await refundRows()).toBe(refundRowsBefore + bookings.length);
    for (const b of bookings) {
      await until(`refund of ${b.booking_id} succeeded`, async () => {
        const r = await t.http.get(`/v1/bookings/${b.booking_id}`, alice.token);
        return r.body?.refund?.status === 'succeeded';
      }, 30_000);
    }
    await until('the outbox to settle', () => outboxSettled(t), 30_000);
    for (const b of bookings) {
      const refunds = refundsFor(t, b.booking_id);
      const [pi] = paymentIntentsFor(t, { bookingId: b.booking_id });
      expect(refunds, `simulator refunds of ${b.booking_id}`).toHaveLength(1);
      expect(refunds[0]!.amount).toBe(b.amount);
      expect(refunds[0]!.payment_intent).toBe(pi!.id);
    }

    // A repeat later answers the same (now with the refund succeeded) and refunds nothing more.
    const repeats = await Promise.all(bookings.map((b) => cancel(b.booking_id)));
    for (const [i, r] of repeats.entries()) {
      const b = bookings[i]!;
      expectCancelled(r, b.booking_id, b.amount);
      expect(r.body.refund.status).toBe('succeeded');
      const view = await t.http.get(`/v1/bookings/${b.booking_id}`, alice.token);
      expect(r.body).toEqual(view.body);
    }
    expect(await refundRows()).toBe(refundRowsBefore + bookings.length);
    await until('the outbox to settle', () => outboxSettled(t), 30_000);
    for (const b of bookings) expect(refundsFor(t, b.booking_id), `simulator refunds of ${b.booking_id}`).toHaveLength(1);
  });

  it('answers 409 CANCELLATION_WINDOW_CLOSED for a show starting in less than cancel_until_minutes_before (default 120)', async () => {
    const soon = await createShow(t, { rows: 1, seatsPerRow: 5, starts_at: new Date(Date.now() + 60 * 60_000).toISOString() });
    const show = await t.http.get(`/v1/shows/${soon.showId}`);
    expect(show.body.cancel_until_minutes_before).toBe(120);
    const b = await confirmedBooking(t, soon.showId, [soon.seats[0]!], alice.token);
    expectProblem(await cancel(b.booking_id), 409, 'CANCELLATION_WINDOW_CLOSED');
    const after = await t.http.get(`/v1/bookings/${b.booking_id}`, alice.token);
    expect(after.body.status).toBe('confirmed');
    expect(after.body.refund).toBeUndefined();
    const map = await t.http.get(`/v1/shows/${soon.showId}/seats`);
    expect(map.body.seats.find((s: { seat: string }) => s.seat === soon.seats[0])?.status).toBe('booked');
    expect(refundsFor(t, b.booking_id)).toHaveLength(0);
  });

  it('judges the window by the database clock (shifted to 100 minutes before the start)', async () => {
    const b = await confirmedBooking(t, showId, take(1), alice.token);
    const db = t.service.ctx.db;
    const r = await db.query<{ secs: number }>(
      `select extract(epoch from (s.starts_at - interval '100 minutes' - bo_now()))::float8 as secs from shows s where s.id = $1`, [showId]);
    const shift = Math.ceil(r.rows[0]!.secs);
    await shiftClock(db, shift);
    try {
      expectProblem(await cancel(b.booking_id), 409, 'CANCELLATION_WINDOW_CLOSED');
    } finally {
      await shiftClock(db, -shift);
    }
    // Back in the window, it cancels.
    expectCancelled(await cancel(b.booking_id), b.booking_id, 1000);
  });

  it('answers 409 NOT_CANCELLABLE for a failed (declined) booking', async () => {
    const holdId = await holdSeats(t, showId, take(1), alice.token);
    const failed = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey('declined'));
    expectStatus(failed, 201);
    expect(failed.body.status).toBe('failed');
    expectProblem(await cancel(failed.body.booking_id), 409, 'NOT_CANCELLABLE');
    expectProblem(await cancel(failed.body.booking_id), 409, 'NOT_CANCELLABLE');
    const after = await t.http.get(`/v1/bookings/${failed.body.booking_id}`, alice.token);
    expect(after.body.status).toBe('failed');
    expect(after.body.refund).toBeUndefined();
    expect(refundsFor(t, failed.body.booking_id)).toHaveLength(0);
  });

  it("answers 404 for someone else's booking (and changes nothing); 401 without a token", async () => {
    const b = await confirmedBooking(t, showId, take(1), alice.token);
    expectProblem(await cancel(b.booking_id, bob.token), 404, 'NOT_FOUND');
    expectProblem(await cancel('bkg_nope'), 404, 'NOT_FOUND');
    expectProblem(await t.http.post(`/v1/bookings/${b.booking_id}/cancel`, {}), 401, 'UNAUTHENTICATED');
    const after = await t.http.get(`/v1/bookings/${b.booking_id}`, alice.token);
    expect(after.body.status).toBe('confirmed');
    expect(after.body.refund).toBeUndefined();
  });
});
