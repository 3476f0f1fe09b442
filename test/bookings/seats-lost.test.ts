// A payment that succeeds for seats the booking could not get is refunded
// automatically (API.md "Bookings and payment"; DESIGN.md invariant 4): the
// booking ends `refunded` with one refund for `seats_lost`, the seats it still
// had are free, and no seat is sold twice. Paying seats are never reclaimed, so
// the lost seat is made here by SQL, as an earlier bug would have left it; the
// workers are driven by hand so that the order of events is fixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { eventBody, postWebhook, sign } from '../payments/serviceWebhooks.js';
import {
  closeService, confirmedBooking, expectStatus, holdSeats, newKey, outboxSettled, paymentIntentsFor, postBooking, refundsFor, retrying,
  sleep, startService, until,
} from './helpers.js';

describe('a payment that succeeds after the booking lost a seat', () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;
  let bob: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {}, workers: false, config: { paymentTimeoutMs: 1000 } });
    // No webhooks: the reconciler alone learns the outcome, when the test says so.
    t.simulator!.ctx.webhooks.setEndpoint(null);
    ({ showId } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 6 })));
    [alice, bob] = (await retrying('registering buyers', () => registerBuyers(t, 2))) as [Buyer, Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const seatRows = async (seats = ['A1', 'A2']) => (await t.service.ctx.db.query<{ seat_id: string; status: string; booking_id: string | null }>(
    'select seat_id, status, booking_id from show_seats where show_id = $1 and seat_id = any($2::text[]) order by seat_id', [showId, seats])).rows;

  /** As an earlier bug would have left it: the seat leaves its paying hold and is free. */
  const loseSeat = (seat: string) => t.service.ctx.db.query(
    `update show_seats set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null, version = nextval('seat_version_seq')
      where show_id = $1 and seat_id = $2`, [showId, seat]);

  it('is refunded once (seats_lost), frees the seat it still had, and the lost seat stays sold to its new buyer', async () => {
    // Alice pays for A1+A2; the provider takes the money but the answer is lost.
    const holdId = await holdSeats(t, showId, ['A1', 'A2'], alice.token);
    const paid = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_timeout_succeeds' }, alice.token, newKey('lost'));
    expectStatus(paid, 201);
    expect(paid.body.status).toBe('pending');
    const bookingId: string = paid.body.booking_id;
    const [pi] = paymentIntentsFor(t, { bookingId });
    expect(pi?.status).toBe('succeeded');

    // A2 leaves Alice's hold (an earlier bug), and Bob buys it.
    await loseSeat('A2');
    const bobs = await confirmedBooking(t, showId, ['A2'], bob.token);

    // The reconciler learns that Alice's payment succeeded, then the refund goes out.
    await sleep(300);
    const outcome = await until('the outcome to be applied', async () => {
      await t.service.workers.runOnce();
      const b = await t.http.get(`/v1/bookings/${bookingId}`, alice.token);
      return b.body.status !== 'pending' ? b.body : null;
    }, 20_000, 200);
    expect(outcome).toMatchObject({ booking_id: bookingId, status: 'refunded', refund: { amount: 2000 } });
    await until('the refund to be delivered', async () => {
      await t.service.workers.runOnce();
      return (await outboxSettled(t)) && (await t.http.get(`/v1/bookings/${bookingId}`, alice.token)).body.refund?.status === 'succeeded';
    }, 20_000, 200);
    const refundRows = (await t.service.ctx.db.query<{ reason: string; payment_intent: string }>(
      'select reason, payment_intent from refunds where booking_id = $1', [bookingId])).rows;
    expect(refundRows).toEqual([{ reason: 'seats_lost', payment_intent: pi!.id }]);
    const refunds = refundsFor(t, bookingId);
    expect(refunds, 'refunds at the simulator').toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 2000, payment_intent: pi!.id });

    expect(await seatRows()).toEqual([
      { seat_id: 'A1', status: 'available', booking_id: null },
      { seat_id: 'A2', status: 'booked', booking_id: bobs.booking_id },
    ]);
    expect((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status).toBe('expired');
    expect((await t.http.get(`/v1/bookings/${bobs.booking_id}`, bob.token)).body.status).toBe('confirmed');
    const stats = await t.http.get(`/v1/admin/shows/${showId}/stats`, t.adminToken);
    expect(stats.body).toMatchObject({
      bookings_confirmed: 1, refunds: 1, refunds_by_reason: { cancellation: 0, seats_lost: 1 }, double_sold: 0, seats: { booked: 1 },
    });

    // More passes (a late reconciler, a repeated outbox row) refund nothing more.
    for (let i = 0; i < 3; i++) await t.service.workers.runOnce();
    await sleep(200);
    expect(refundsFor(t, bookingId)).toHaveLength(1);
    expect((await t.http.get(`/v1/bookings/${bookingId}`, alice.token)).body.status).toBe('refunded');
  });

  it('the same when the success arrives as the provider\'s webhook (read back) rather than through the reconciler', async () => {
    const holdId = await holdSeats(t, showId, ['A3', 'A4'], alice.token);
    const paid = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_timeout_succeeds' }, alice.token, newKey('lost-webhook'));
    expect(paid.body.status).toBe('pending');
    const bookingId: string = paid.body.booking_id;
    const [pi] = paymentIntentsFor(t, { bookingId });
    await loseSeat('A4');
    const bobs = await confirmedBooking(t, showId, ['A4'], bob.token);

    // The event the simulator would have sent, signed with the webhook secret; nothing else runs.
    const e = eventBody('payment_intent.succeeded', pi!);
    expectStatus(await postWebhook(t, e.raw, sign(e.raw)), 200);
    const view = await t.http.get(`/v1/bookings/${bookingId}`, alice.token);
    expect(view.body).toMatchObject({ status: 'refunded', refund: { status: 'pending', amount: 2000 } });
    expect(await seatRows(['A3', 'A4'])).toEqual([
      { seat_id: 'A3', status: 'available', booking_id: null },
      { seat_id: 'A4', status: 'booked', booking_id: bobs.booking_id },
    ]);

    await until('the refund to be delivered', async () => {
      await t.service.workers.runOnce();
      return (await outboxSettled(t)) && (await t.http.get(`/v1/bookings/${bookingId}`, alice.token)).body.refund?.status === 'succeeded';
    }, 20_000, 200);
    expect(refundsFor(t, bookingId)).toHaveLength(1);
    expect((await t.http.get(`/v1/admin/shows/${showId}/stats`, t.adminToken)).body).toMatchObject({ refunds: 2, refunds_by_reason: { cancellation: 0, seats_lost: 2 }, double_sold: 0 });
  });
});
