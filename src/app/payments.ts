// What a payment's outcome does to its booking. The same function serves the
// booking request, the reconciler and the webhook: whichever learns the outcome
// first applies it, under the booking's row lock; later arrivals change nothing.
import { newId } from '../domain/ids.js';
import * as bookings from '../db/bookings.js';
import * as payments from '../db/payments.js';
import { enqueue } from '../db/outbox.js';
import { mustHaveMoved } from '../domain/states.js';
import type { ChargeOutcome } from '../payments/provider.js';
import type { Context } from './context.js';

export async function applyPaymentOutcome(ctx: Context, attemptId: string, outcome: ChargeOutcome): Promise<void> {
  ctx.metrics.paymentOutcomes.inc({ outcome: outcome.kind });
  if (outcome.kind === 'unknown') {
    await payments.markAttemptUnknown(ctx.db, attemptId, outcome.reason, ctx.config.reconcileBaseSeconds);
    const pending = await payments.findAttempt(ctx.db, attemptId);
    ctx.log.info({ event: 'payment.outcome_unknown', attempt_id: attemptId, booking_id: pending?.booking_id, reason: outcome.reason },
      'payment outcome unknown; the booking stays pending and the reconciler asks the provider again');
    return;
  }
  // The same answer arriving again (the request's own answer, then its webhook, a
  // duplicate delivery, a late reconciler) was applied in the transaction that
  // recorded it: nothing to do, no transaction, no lock.
  const known = await payments.findAttempt(ctx.db, attemptId);
  if (!known || known.status === outcome.kind) return;
  // What this call decided, logged once the transaction has committed.
  const decided: { event?: { event: string; msg: string; [field: string]: unknown } } = {};
  await ctx.db.transaction(async (tx) => {
    const booking = await bookings.lockBooking(tx, known.booking_id);
    if (!booking) return;
    const failure = outcome.kind === 'failed' ? outcome.failure : null;
    const firstWord = await payments.resolveAttempt(tx, attemptId, outcome.kind, outcome.paymentIntentId, failure);
    const where = { holdId: booking.hold_id, showId: booking.show_id, bookingId: booking.booking_id };

    if (outcome.kind === 'failed') {
      if (firstWord && booking.status === 'pending') {
        mustHaveMoved(await bookings.failBooking(tx, booking.booking_id), `booking ${booking.booking_id} pending → failed`);
        mustHaveMoved(await bookings.returnSeatsToHold(tx, where), `hold ${booking.hold_id} paying → active`);
        decided.event = { event: 'booking.failed', ...about(booking), reason: outcome.failure.code, msg: 'booking failed: the payment was refused; the seats are back in the hold' };
      }
      return;
    }

    // Money was taken. Book the seats where the hold still has them; otherwise refund.
    if (booking.status === 'pending') {
      const got = await bookings.bookSeats(tx, where);
      if (got === booking.seats.length) {
        mustHaveMoved(await bookings.confirmBooking(tx, booking.booking_id), `booking ${booking.booking_id} pending → confirmed`);
        mustHaveMoved(await bookings.confirmHold(tx, booking.hold_id), `hold ${booking.hold_id} paying → confirmed`);
        await enqueue(tx, 'ticket.issue', { booking_id: booking.booking_id });
        decided.event = { event: 'booking.confirmed', ...about(booking), payment_intent: outcome.paymentIntentId, msg: 'booking confirmed' };
        return;
      }
      await bookings.freeSeats(tx, where);
      mustHaveMoved(await bookings.holdLostSeats(tx, booking.hold_id), `hold ${booking.hold_id} paying → expired`);
    }
    if (booking.status === 'confirmed' || booking.status === 'cancelled') return; // this very payment, seen again
    // Already refunded: this very payment seen again; the refund below is written once anyway.
    if (booking.status !== 'refunded') {
      mustHaveMoved(await bookings.markBookingRefunded(tx, booking.booking_id), `booking ${booking.booking_id} ${booking.status} → refunded`);
    }
    await refundBooking(tx, booking, outcome.paymentIntentId, 'seats_lost');
    decided.event = { event: 'booking.refunded', ...about(booking), reason: 'seats_lost', payment_intent: outcome.paymentIntentId, msg: 'booking refunded: paid after its hold had lost the seats' };
  });
  if (decided.event) {
    const { msg, ...fields } = decided.event;
    ctx.log.info(fields, msg);
  }
}

/** What a business event says about a booking: ids and money, never a token, key or card. */
export function about(b: { booking_id: string; show_id: string; hold_id: string; seats: readonly string[]; amount: number | string; currency: string }) {
  return { booking_id: b.booking_id, show_id: b.show_id, hold_id: b.hold_id, seats: b.seats.length, amount: Number(b.amount), currency: b.currency };
}

/** Writes the booking's one refund and its outbox row; a second call for the same booking does nothing. */
export async function refundBooking(
  tx: Parameters<typeof enqueue>[0],
  booking: { booking_id: string; amount: number; currency: string },
  paymentIntentId: string,
  reason: 'cancellation' | 'seats_lost',
): Promise<void> {
  const refundId = newId('rfd');
  const created = await payments.insertRefund(tx, {
    id: refundId, bookingId: booking.booking_id, paymentIntentId, amount: booking.amount, currency: booking.currency, reason,
  });
  if (created) await enqueue(tx, 'refund.create', { refund_id: refundId });
}
