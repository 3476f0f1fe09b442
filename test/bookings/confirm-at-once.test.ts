// A paid booking is confirmed by one statement, outside any transaction for the
// booking request (src/db/seatTransitions.ts confirmPayment). It must confirm
// everything or change nothing: when the booking is no longer pending, or its hold
// lost a seat, it answers false and leaves every row as it was (no exception), so the
// locked path can decide. Bookings here are left pending (the provider's first answer
// lost, no workers, no webhooks) and the statement is run by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { confirmPayment } from '../../src/db/seatTransitions.js';
import { closeService, holdSeats, newKey, paymentIntentsFor, postBooking, retrying, startService } from './helpers.js';

describe('confirming a paid booking at once', () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {}, workers: false, config: { paymentTimeoutMs: 1000 } });
    t.simulator!.ctx.webhooks.setEndpoint(null);
    ({ showId } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 8 })));
    [alice] = (await retrying('registering a buyer', () => registerBuyers(t, 1))) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const db = () => t.service.ctx.db;

  /** A pending booking for these seats whose payment succeeded at the provider. */
  async function pendingPaid(seats: string[]) {
    const holdId = await holdSeats(t, showId, seats, alice.token);
    const paid = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_timeout_succeeds' }, alice.token, newKey('at-once'));
    expect(paid.body.status).toBe('pending');
    const bookingId: string = paid.body.booking_id;
    const attempt = (await db().query<{ id: string }>('select id from payment_attempts where booking_id = $1', [bookingId])).rows[0]!;
    const [pi] = paymentIntentsFor(t, { bookingId });
    return { holdId, bookingId, attemptId: attempt.id, paymentIntentId: pi!.id };
  }

  /** Every row the statement may touch, to compare before and after. */
  async function rowsOf(b: { holdId: string; bookingId: string; attemptId: string }) {
    const one = async (sql: string, p: unknown[]) => (await db().query(sql, p)).rows;
    return {
      booking: await one('select status from bookings where id = $1', [b.bookingId]),
      hold: await one('select status from holds where id = $1', [b.holdId]),
      attempt: await one('select status, provider_payment_id from payment_attempts where id = $1', [b.attemptId]),
      seats: await one('select seat_id, status, booking_id from show_seats where show_id = $1 and hold_id = $2 order by seat_id', [showId, b.holdId]),
      sold: await one('select seat_id from booking_seats where booking_id = $1', [b.bookingId]),
      outbox: await one(`select id from outbox where topic = 'ticket.issue' and payload->>'booking_id' = $1`, [b.bookingId]),
    };
  }

  const confirm = (b: { holdId: string; bookingId: string; attemptId: string; paymentIntentId: string }, seatCount: number) =>
    confirmPayment(db(), { ...b, showId, seatCount });

  it('confirms a pending booking whose hold has every seat: booking, hold, seats, sold rows and the ticket job, in one statement', async () => {
    const b = await pendingPaid(['A1', 'A2']);
    await expect(confirm(b, 2)).resolves.toBe(true);
    const after = await rowsOf(b);
    expect(after.booking).toEqual([{ status: 'confirmed' }]);
    expect(after.hold).toEqual([{ status: 'confirmed' }]);
    expect(after.attempt).toEqual([{ status: 'succeeded', provider_payment_id: b.paymentIntentId }]);
    expect(after.seats.map((s) => s.status)).toEqual(['booked', 'booked']);
    expect(after.sold).toHaveLength(2);
    expect(after.outbox).toHaveLength(1);
  });

  it('changes nothing when the booking is no longer pending (the outcome was applied already)', async () => {
    const b = await pendingPaid(['A3']);
    await confirm(b, 1);
    const before = await rowsOf(b);
    await expect(confirm(b, 1)).resolves.toBe(false);
    expect(await rowsOf(b)).toEqual(before);
  });

  it('changes nothing when the hold lost a seat: no seat booked, no sold row, the attempt keeps its status', async () => {
    const b = await pendingPaid(['A5', 'A6']);
    await db().query(
      `update show_seats set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null, version = nextval('seat_version_seq')
        where show_id = $1 and seat_id = 'A6'`, [showId]);
    const before = await rowsOf(b);
    expect(before.seats).toEqual([{ seat_id: 'A5', status: 'paying', booking_id: null }]);
    await expect(confirm(b, 2)).resolves.toBe(false);
    expect(await rowsOf(b)).toEqual(before);
  });
});
