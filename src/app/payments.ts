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
import { sqlState } from '../db/sqlstate.js';

/** What applying an outcome confirmed: the booking as it stands after, and whether the request's answer was stored with it. */
export interface Confirmed {
  booking: bookings.BookingRow;
  answerStored: boolean;
}

/**
 * Applies a payment's outcome to its booking; returns the booking as it stands
 * after, when this call confirmed it (the caller need not read it again), else null.
 * `entered` is given by the booking request, which has just entered the booking into
 * payment: no need to read it first, and a success is applied by one statement that
 * confirms it or changes nothing (the locked path below handles everything else).
 * `answer` (with `entered`): the request's answer for a confirmed booking, stored
 * under its key by that same statement.
 */
export async function applyPaymentOutcome(
  ctx: Context, attemptId: string, outcome: ChargeOutcome, entered?: bookings.BookingRow, answer?: bookings.KeyedAnswer,
): Promise<Confirmed | null> {
  ctx.metrics.paymentOutcomes.inc({ outcome: outcome.kind });
  const bookingId = entered?.booking_id;
  if (outcome.kind === 'unknown') {
    await payments.markAttemptUnknown(ctx.db, attemptId, outcome.reason, ctx.config.reconcileBaseSeconds);
    ctx.log.info({ event: 'payment.outcome_unknown', attempt_id: attemptId, booking_id: bookingId ?? (await payments.findAttempt(ctx.db, attemptId))?.booking_id, reason: outcome.reason },
      'payment outcome unknown; the booking stays pending and the reconciler asks the provider again');
    return null;
  }
  if (entered && outcome.kind === 'succeeded') {
    const confirmed = await confirmAtOnce(ctx, entered, attemptId, outcome.paymentIntentId, answer);
    if (confirmed) return { booking: confirmed, answerStored: answer !== undefined };
  }
  // The same answer arriving again (the request's own answer, then its webhook, a
  // duplicate delivery, a late reconciler) was applied in the transaction that
  // recorded it: nothing to do, no transaction, no lock.
  let known = bookingId;
  if (!known) {
    const attempt = await payments.findAttempt(ctx.db, attemptId);
    if (!attempt || attempt.status === outcome.kind) return null;
    known = attempt.booking_id;
  }
  // What this call decided, logged once the transaction has committed.
  const decided: { event?: { event: string; msg: string; [field: string]: unknown }; confirmed?: bookings.BookingRow } = {};
  await ctx.db.transaction(async (tx) => {
    const booking = await bookings.lockBooking(tx, known);
    if (!booking) return;
    const where = { holdId: booking.hold_id, showId: booking.show_id, bookingId: booking.booking_id };

    if (outcome.kind === 'succeeded' && booking.status === 'pending') {
      // Money was taken. The common case is one statement: the provider's word
      // recorded, the seats booked, booking and hold confirmed, tickets queued.
      const paid = await bookings.confirmPaidBooking(tx, { ...where, attemptId, paymentIntentId: outcome.paymentIntentId, seatCount: booking.seats.length });
      if (paid.confirmed) {
        if (!paid.hold_confirmed) throw new Error(`hold ${booking.hold_id}: not paying while its booking was pending`);
        decided.event = { event: 'booking.confirmed', ...about(booking), payment_intent: outcome.paymentIntentId, msg: 'booking confirmed' };
        decided.confirmed = { ...booking, status: 'confirmed' };
        return;
      }
      // The hold no longer had every seat: free what it had, refund below.
      await bookings.freeSeats(tx, where);
      mustHaveMoved(await bookings.holdLostSeats(tx, booking.hold_id), `hold ${booking.hold_id} paying → expired`);
    } else {
      const failure = outcome.kind === 'failed' ? outcome.failure : null;
      const firstWord = await payments.resolveAttempt(tx, attemptId, outcome.kind, outcome.paymentIntentId, failure);
      if (outcome.kind === 'failed') {
        if (firstWord && booking.status === 'pending') {
          mustHaveMoved(await bookings.failBooking(tx, booking.booking_id), `booking ${booking.booking_id} pending → failed`);
          mustHaveMoved(await bookings.returnSeatsToHold(tx, where), `hold ${booking.hold_id} paying → active`);
          decided.event = { event: 'booking.failed', ...about(booking), reason: outcome.failure.code, msg: 'booking failed: the payment was refused; the seats are back in the hold' };
        }
        return;
      }
      if (booking.status === 'confirmed' || booking.status === 'cancelled') return; // this very payment, seen again
    }
    // Money was taken for seats the booking does not have: refund it.
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
  return decided.confirmed ? { booking: decided.confirmed, answerStored: false } : null;
}

/**
 * The common case of a booking request, in one round trip: the money was taken and
 * the booking is still pending with every seat its hold's. Null when it was not so
 * (the statement then changed nothing): the caller applies the outcome the long way.
 */
async function confirmAtOnce(
  ctx: Context, b: bookings.BookingRow, attemptId: string, paymentIntentId: string, answer?: bookings.KeyedAnswer,
): Promise<bookings.BookingRow | null> {
  try {
    await bookings.confirmPaidBooking(ctx.db, {
      bookingId: b.booking_id, holdId: b.hold_id, showId: b.show_id, attemptId, paymentIntentId, seatCount: b.seats.length, atOnce: true,
      ...(answer ? { answer } : {}),
    });
  } catch (err) {
    if (sqlState(err) === bookings.GUARD_FAILED) return null;
    throw err;
  }
  ctx.log.info({ event: 'booking.confirmed', ...about(b), payment_intent: paymentIntentId }, 'booking confirmed');
  return { ...b, status: 'confirmed' };
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
