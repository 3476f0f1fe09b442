// What a payment's outcome does to its booking. The same function serves the
// booking request, the reconciler and the webhook: whichever learns the outcome
// first applies it, under the booking's row lock; later arrivals change nothing.
import { newId } from '../domain/ids.js';
import * as bookings from '../db/bookings.js';
import * as payments from '../db/payments.js';
import { enqueue } from '../db/outbox.js';
import type { ChargeOutcome } from '../payments/provider.js';
import type { Context } from './context.js';

export async function applyPaymentOutcome(ctx: Context, attemptId: string, outcome: ChargeOutcome): Promise<void> {
  ctx.metrics.paymentOutcomes.inc({ outcome: outcome.kind });
  if (outcome.kind === 'unknown') {
    await payments.markAttemptUnknown(ctx.db, attemptId, outcome.reason, ctx.config.reconcileBaseSeconds);
    return;
  }
  // The same answer arriving again (the request's own answer, then its webhook, a
  // duplicate delivery, a late reconciler) was applied in the transaction that
  // recorded it: nothing to do, no transaction, no lock.
  const known = await payments.findAttempt(ctx.db, attemptId);
  if (!known || known.status === outcome.kind) return;
  await ctx.db.transaction(async (tx) => {
    const booking = await bookings.lockBooking(tx, known.booking_id);
    if (!booking) return;
    const failure = outcome.kind === 'failed' ? outcome.failure : null;
    const firstWord = await payments.resolveAttempt(tx, attemptId, outcome.kind, outcome.paymentIntentId, failure);
    const where = { holdId: booking.hold_id, showId: booking.show_id, bookingId: booking.booking_id };

    if (outcome.kind === 'failed') {
      if (firstWord && booking.status === 'pending') {
        await bookings.setBookingStatus(tx, booking.booking_id, 'failed');
        await bookings.returnSeatsToHold(tx, where);
      }
      return;
    }

    // Money was taken. Book the seats where the hold still has them; otherwise refund.
    if (booking.status === 'pending') {
      const got = await bookings.bookSeats(tx, where);
      if (got === booking.seats.length) {
        await bookings.setBookingStatus(tx, booking.booking_id, 'confirmed');
        await bookings.setHoldStatus(tx, booking.hold_id, 'confirmed');
        await enqueue(tx, 'ticket.issue', { booking_id: booking.booking_id });
        return;
      }
      await bookings.freeSeats(tx, where);
      await bookings.setHoldStatus(tx, booking.hold_id, 'expired');
    }
    if (booking.status === 'confirmed' || booking.status === 'cancelled') return; // this very payment, seen again
    await bookings.setBookingStatus(tx, booking.booking_id, 'refunded');
    await refundBooking(tx, booking, outcome.paymentIntentId, 'seats_lost');
  });
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
