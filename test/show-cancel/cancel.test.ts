// Cancelling and deleting a show (API.md "Cancelling and removing shows"): the sale
// stops at once, every active hold is released, every confirmed booking is cancelled
// by the organiser with one full refund (judged by the simulator's own books), the
// tickets are void, a payment in flight is refunded once it succeeds, repeating
// changes nothing; a show nothing was booked for can be deleted, one with bookings not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, holdSeats, newKey, outboxSettled, paymentIntentsFor, postBooking, refundsFor,
  retrying, startService, until, waitForTickets,
} from '../bookings/helpers.js';

describe('cancelling a show', () => {
  let t: TestService;
  let alice: Buyer;
  let bob: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {} });
    [alice, bob] = (await retrying('registering buyers', () => registerBuyers(t, 2))) as [Buyer, Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const cancelShow = (showId: string, reason = 'the artist is ill', token = t.adminToken) => t.http.post(`/v1/admin/shows/${showId}/cancel`, { reason }, token);
  const progress = async (showId: string) => {
    const r = await t.http.get(`/v1/admin/shows/${showId}/cancellation`, t.adminToken);
    expectStatus(r, 200);
    return r.body;
  };

  it('stops the sale, releases holds, cancels and refunds every booking once, voids its tickets; a repeat refunds nothing more', async () => {
    const { showId, seats } = await createShow(t, { rows: 2, seatsPerRow: 10, per_user_limit: 20 });
    const booked = [
      await confirmedBooking(t, showId, [seats[0]!, seats[1]!], alice.token),
      await confirmedBooking(t, showId, [seats[2]!], alice.token),
      await confirmedBooking(t, showId, [seats[3]!], bob.token),
    ];
    const [ticket] = await waitForTickets(t, booked[1]!.booking_id, 1, alice.token);
    const bobHold = await holdSeats(t, showId, [seats[10]!, seats[11]!], bob.token);

    const first = await cancelShow(showId);
    expectStatus(first, 202);
    expect(first.body).toEqual({ show_id: showId, status: 'cancelled', bookings_to_refund: 3 });

    // At once: no hold, no booking, the hold released, the show out of listings but readable.
    expectProblem(await t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[15]!] }, alice.token), 409, 'SHOW_CANCELLED');
    expect((await t.http.get(`/v1/holds/${bobHold}`, bob.token)).body.status).toBe('released');
    expectProblem(await postBooking(t, { hold_id: bobHold, payment_method: 'pm_card_visa' }, bob.token, newKey()), 409, 'SHOW_CANCELLED');
    const show = await t.http.get(`/v1/shows/${showId}`);
    expectStatus(show, 200);
    expect(show.body.status).toBe('cancelled');
    const listed = await t.http.get('/v1/shows');
    expect(listed.body.shows.map((s: { id: string }) => s.id)).not.toContain(showId);
    // The ticket is void at the gate and as an image, before the worker got to its booking or after.
    const staff = await t.http.post('/v1/checkin', { code: ticket!.code }, t.adminToken);
    expectProblem(staff, 410, 'TICKET_VOID');
    expectProblem(await t.http.get(ticket!.qr_svg_url), 410, 'TICKET_VOID');

    // The worker: every booking cancelled by the organiser, refunded in full, once.
    const done = await until('the cancellation completed and refunded', async () => {
      const p = await progress(showId);
      return p.completed && p.refunds.succeeded === 3 ? p : null;
    });
    expect(done).toMatchObject({ bookings_to_refund: 3, bookings_cancelled: 3, bookings_remaining: 0, payments_pending: 0, reason: 'the artist is ill' });
    for (const b of booked) {
      const owner = b === booked[2] ? bob : alice;
      const view = await t.http.get(`/v1/bookings/${b.booking_id}`, owner.token);
      expect(view.body).toMatchObject({ status: 'cancelled', cancelled_by: 'organiser', refund: { status: 'succeeded', amount: b.amount } });
      expect(refundsFor(t, b.booking_id).map((r) => r.amount)).toEqual([b.amount]);
      expect((await t.http.get(`/v1/bookings/${b.booking_id}/tickets`, owner.token)).body.tickets).toEqual([]);
    }
    // The seats are free (nothing is sold: the claim refuses the show).
    const map = await t.http.get(`/v1/shows/${showId}/seats`);
    expect(map.body.seats.filter((s: { status: string }) => s.status !== 'available')).toEqual([]);

    // A repeat (another reason) answers the same and refunds nothing more.
    const again = await cancelShow(showId, 'another reason');
    expectStatus(again, 202);
    expect(again.body).toEqual(first.body);
    await t.service.workers.runOnce();
    await until('outbox settled', () => outboxSettled(t));
    for (const b of booked) expect(refundsFor(t, b.booking_id)).toHaveLength(1);
    expect((await progress(showId)).reason).toBe('the artist is ill');
  });

  it('a payment in flight when the show is cancelled is refunded once it succeeds; the booking says cancelled by the organiser', async () => {
    const { showId, seats } = await createShow(t, { rows: 1, seatsPerRow: 10 });
    const holdId = await holdSeats(t, showId, [seats[0]!], alice.token);
    // pm_card_slow succeeds after about 3 s: the show is cancelled meanwhile.
    const paying = postBooking(t, { hold_id: holdId, payment_method: 'pm_card_slow' }, alice.token, newKey('slow'));
    await until('the payment in flight', async () => (await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status === 'paying');
    const cancelled = await cancelShow(showId);
    expectStatus(cancelled, 202);
    expect(cancelled.body.bookings_to_refund).toBe(0);
    expect((await progress(showId)).payments_pending).toBe(1);
    const answer = await paying;
    expectStatus(answer, 201);
    // The test service waits 2 s for the provider: the answer may come before the outcome.
    expect(['pending', 'cancelled']).toContain(answer.body.status);
    const bookingId = answer.body.booking_id as string;
    const p = await until('completed and refunded', async () => {
      const x = await progress(showId);
      return x.completed && x.refunds.succeeded === 1 ? x : null;
    });
    expect(p).toMatchObject({ bookings_to_refund: 1, bookings_cancelled: 1, payments_pending: 0 });
    const view = await t.http.get(`/v1/bookings/${bookingId}`, alice.token);
    expect(view.body).toMatchObject({ status: 'cancelled', cancelled_by: 'organiser', refund: { status: 'succeeded', amount: answer.body.amount } });
    const charged = paymentIntentsFor(t, { bookingId }).filter((pi) => pi.status === 'succeeded').reduce((s, pi) => s + pi.amount, 0);
    const refunded = refundsFor(t, bookingId).reduce((s, r) => s + r.amount, 0);
    expect(charged).toBe(answer.body.amount);
    expect(refunded).toBe(charged);
  });

  it('a waiting-room show cancelled: joining its queue and holding answer 409 SHOW_CANCELLED', async () => {
    const { showId, seats } = await createShow(t, { rows: 1, seatsPerRow: 4, waiting_room: true });
    const joined = await t.http.post(`/v1/shows/${showId}/queue`, {}, alice.token);
    expectStatus(joined, 201);
    expectStatus(await cancelShow(showId), 202);
    expectProblem(await t.http.post(`/v1/shows/${showId}/queue`, {}, bob.token), 409, 'SHOW_CANCELLED');
    // Refused before the gate: no admission token is asked of a show that sells nothing.
    expectProblem(await t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[0]!] }, bob.token), 409, 'SHOW_CANCELLED');
  });

  it('only an admin cancels; an unknown show is 404; a show not cancelled has no cancellation', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4 });
    expectProblem(await cancelShow(showId, 'x', alice.token), 403, 'FORBIDDEN');
    expectProblem(await cancelShow('show_nope'), 404, 'NOT_FOUND');
    expectProblem(await t.http.post(`/v1/admin/shows/${showId}/cancel`, {}, t.adminToken), 400, 'VALIDATION_FAILED');
    expectProblem(await t.http.get(`/v1/admin/shows/${showId}/cancellation`, t.adminToken), 404, 'NOT_FOUND');
    expect((await t.http.get(`/v1/shows/${showId}`)).body.status).toBe('on_sale');
  });
});

describe('deleting a show', () => {
  let t: TestService;
  let alice: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {} });
    [alice] = (await retrying('registering buyers', () => registerBuyers(t, 1))) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  it('deletes a show nothing was booked for (holds included); refuses one with a booking, even a failed one', async () => {
    const empty = await createShow(t, { rows: 1, seatsPerRow: 4 });
    await holdSeats(t, empty.showId, [empty.seats[0]!], alice.token);
    expectProblem(await t.http.delete(`/v1/admin/shows/${empty.showId}`, alice.token), 403, 'FORBIDDEN');
    const gone = await t.http.delete(`/v1/admin/shows/${empty.showId}`, t.adminToken);
    expectStatus(gone, 204);
    expectProblem(await t.http.get(`/v1/shows/${empty.showId}`), 404, 'NOT_FOUND');
    expectProblem(await t.http.delete(`/v1/admin/shows/${empty.showId}`, t.adminToken), 404, 'NOT_FOUND');

    const declined = await createShow(t, { rows: 1, seatsPerRow: 4 });
    const holdId = await holdSeats(t, declined.showId, [declined.seats[0]!], alice.token);
    const failed = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey());
    expect(failed.body.status).toBe('failed');
    expectProblem(await t.http.delete(`/v1/admin/shows/${declined.showId}`, t.adminToken), 409, 'SHOW_HAS_BOOKINGS');
    expect((await t.http.get(`/v1/shows/${declined.showId}`)).body.status).toBe('on_sale');
    // The refusal changed nothing: the hold is still the buyer's.
    expect((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status).toBe('active');
  });
});
