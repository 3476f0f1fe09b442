// Bookings: pay for a hold, read bookings, cancel one.
import { DomainError, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { mustHaveMoved, type BookingStatus, type RefundStatus } from '../domain/states.js';
import * as bookings from '../db/bookings.js';
import { findHold } from '../db/holds.js';
import type { Principal } from '../auth/tokens.js';
import { about, applyPaymentOutcome, refundBooking } from './payments.js';
import { findAttemptByBooking } from '../db/payments.js';
import { voidTickets } from '../db/tickets.js';
import { currentRole } from './accounts.js';
import type { Context } from './context.js';
import { holdNeedsAdmission } from '../db/waitingRoom.js';
import { QUEUE_REQUIRED } from '../waiting-room/gate.js';
import { sqlState } from '../db/sqlstate.js';

export interface BookingView {
  booking_id: string;
  hold_id: string;
  show_id: string;
  seats: string[];
  amount: number;
  currency: string;
  status: BookingStatus;
  created_at: string;
  refund?: { status: RefundStatus; amount: number };
  /** Why the payment failed; only on a failed booking. */
  failure?: { code: string; message: string };
}

export function bookingView(b: bookings.BookingRow): BookingView {
  return {
    booking_id: b.booking_id,
    hold_id: b.hold_id,
    show_id: b.show_id,
    seats: b.seats,
    amount: b.amount,
    currency: b.currency,
    status: b.status,
    created_at: b.created_at.toISOString(),
    ...(b.refund_status ? { refund: { status: b.refund_status, amount: b.refund_amount! } } : {}),
    ...(b.status === 'failed' && b.failure_code ? { failure: { code: b.failure_code, message: b.failure_message ?? '' } } : {}),
  };
}

/** What a paid-for booking request answers: its view, and whether the answer is already stored under its key. */
export interface Booked {
  view: BookingView;
  answerStored: boolean;
}

/**
 * Pays for the caller's hold: records the booking and its payment attempt, then
 * asks the provider (no lock held), then applies the first answer. A lost answer
 * leaves the booking pending for the reconciler. The key must be claimed already
 * (claimKey), the booking's id is noted on it.
 */
export async function book(
  ctx: Context, buyer: Principal, idempotencyKey: string, input: { hold_id: string; payment_method: string },
  /** The show of the caller's admission token, verified in process (src/waiting-room/gate.ts), or null. */
  admittedShowId: string | null = null,
): Promise<BookingView> {
  const ids = { bookingId: newId('bkg'), attemptId: newId('pay') };
  const entered = await bookings.enterPayment(ctx.db, enterInput(ctx, buyer, idempotencyKey, input, admittedShowId, ids));
  if (!entered) {
    if (await holdNeedsAdmission(ctx.db, input.hold_id, buyer.userId, admittedShowId)) throw new DomainError(QUEUE_REQUIRED.code, QUEUE_REQUIRED.message);
    throw await notPayable(ctx, input.hold_id);
  }
  return (await pay(ctx, buyer, input, ids, entered)).view;
}

/** A booking entered into payment by the statement that also claimed its key. */
export interface EnteredWithKey {
  ids: { bookingId: string; attemptId: string };
  entered: bookings.EnteredPayment;
}

/**
 * The common case's first statement (one commit): the key claimed and the hold
 * entered into payment together. Null when it changed nothing — the key was not free,
 * or the hold could not enter payment: the caller takes the slow path (claimKey,
 * book) to learn why. A throw means the same: nothing was claimed.
 */
export async function enterClaimingKey(
  ctx: Context, buyer: Principal, idempotencyKey: string, input: { hold_id: string; payment_method: string },
  admittedShowId: string | null, claim: bookings.KeyClaim,
): Promise<EnteredWithKey | null> {
  const ids = { bookingId: newId('bkg'), attemptId: newId('pay') };
  try {
    const entered = await bookings.enterPayment(ctx.db, { ...enterInput(ctx, buyer, idempotencyKey, input, admittedShowId, ids), claim });
    return entered ? { ids, entered } : null;
  } catch (err) {
    if (sqlState(err) === bookings.GUARD_FAILED) return null;
    throw err;
  }
}

/**
 * Its second (the second commit): the provider asked, and a success confirmed with
 * the request's answer stored under its key in the same statement. `answerStored`
 * is false when the outcome took the long way (declined, unknown, applied first by a webhook).
 */
export function payClaimed(
  ctx: Context, buyer: Principal, idempotencyKey: string, input: { hold_id: string; payment_method: string },
  claimed: EnteredWithKey, answerFor: (view: BookingView) => { status: number; body: unknown },
): Promise<Booked> {
  return pay(ctx, buyer, input, claimed.ids, claimed.entered, (view) => ({ userId: buyer.userId, key: idempotencyKey, ...answerFor(view) }));
}

/** When the reconciler first asks the provider about a payment still pending: after the request has given up waiting, and a margin. */
export const reconcileAfterSeconds = (config: { paymentTimeoutMs: number }) => Math.ceil(config.paymentTimeoutMs / 1000) + 5;

function enterInput(
  ctx: Context, buyer: Principal, idempotencyKey: string, input: { hold_id: string; payment_method: string },
  admittedShowId: string | null, ids: { bookingId: string; attemptId: string },
) {
  return {
    holdId: input.hold_id, userId: buyer.userId, ...ids, paymentMethod: input.payment_method,
    reconcileAfterSeconds: reconcileAfterSeconds(ctx.config), admittedShowId, idempotencyKey,
  };
}

/** The provider asked, its first answer applied; `answerFor` lets a confirmation store the request's answer with it. */
async function pay(
  ctx: Context, buyer: Principal, input: { hold_id: string; payment_method: string }, ids: { bookingId: string; attemptId: string },
  entered: bookings.EnteredPayment, answerFor?: (view: BookingView) => bookings.KeyedAnswer,
): Promise<Booked> {
  const { bookingId, attemptId } = ids;
  const outcome = await ctx.payments.charge(
    { attemptId, bookingId, holdId: input.hold_id, amount: entered.amount, currency: entered.currency, paymentMethod: input.payment_method },
    ctx.config.paymentTimeoutMs,
  );
  const pending: bookings.BookingRow = {
    booking_id: bookingId, hold_id: input.hold_id, user_id: buyer.userId, ...entered, status: 'pending',
    refund_status: null, refund_amount: null, failure_code: null, failure_message: null,
  };
  // The view a confirmation would answer with is known before it is made.
  const answer = answerFor && outcome.kind === 'succeeded' ? answerFor(bookingView({ ...pending, status: 'confirmed' })) : undefined;
  const confirmed = await applyPaymentOutcome(ctx, attemptId, outcome, pending, answer);
  if (confirmed) return { view: bookingView(confirmed.booking), answerStored: confirmed.answerStored };
  return { view: bookingView((await bookings.findBooking(ctx.db, bookingId))!), answerStored: false };
}

/** Why a hold could not enter payment: it never existed (404), or it is not the caller's active hold (409). */
async function notPayable(ctx: Context, holdId: string): Promise<DomainError> {
  if (!(await findHold(ctx.db, holdId))) return notFound('hold');
  return new DomainError('HOLD_EXPIRED', 'the hold is expired, released or not your active hold, or its show has started; nothing was charged');
}

/** The booking the caller (or an admin) may see; others' bookings answer 404. */
export async function getBooking(ctx: Context, caller: Principal, id: string): Promise<BookingView> {
  const b = await bookings.findBooking(ctx.db, id);
  // Someone else's booking: only for an admin, by the role the database holds now
  // (a token keeps the role it was issued with).
  const allowed = b && (b.user_id === caller.userId || (await currentRole(ctx, caller.userId)) === 'admin');
  if (!allowed) throw notFound('booking');
  return bookingView(b);
}

/** The caller's bookings, newest first; a token whose account is gone is refused, not answered with an empty list. */
export async function listBookings(ctx: Context, caller: Principal): Promise<{ bookings: BookingView[] }> {
  const [role, rows] = await Promise.all([currentRole(ctx, caller.userId), bookings.listBookings(ctx.db, caller.userId)]);
  if (!role) throw new DomainError('UNAUTHENTICATED', 'this account no longer exists');
  return { bookings: rows.map(bookingView) };
}

/**
 * Cancels a confirmed booking within the show's window and before any of its
 * tickets is checked in: one transaction frees the seats, voids the tickets and
 * writes the refund to the outbox. A repeat answers the same and refunds nothing more.
 */
export async function cancelBooking(ctx: Context, caller: Principal, id: string): Promise<BookingView> {
  let cancelled: bookings.BookingRow | null = null;
  await ctx.db.transaction(async (tx) => {
    const b = await bookings.lockBooking(tx, id);
    if (!b || b.user_id !== caller.userId) throw notFound('booking');
    if (b.status === 'cancelled') return;
    if (b.status !== 'confirmed') throw new DomainError('NOT_CANCELLABLE', `a ${b.status} booking cannot be cancelled`);
    if (!(await bookings.cancellationOpen(tx, b.show_id))) {
      throw new DomainError('CANCELLATION_WINDOW_CLOSED', 'this show can no longer be cancelled');
    }
    // Someone is at the gate on this booking: refunding now would sell the seat twice.
    if (await bookings.lockTicketsAgainstCheckIn(tx, b.booking_id)) {
      throw new DomainError('NOT_CANCELLABLE', 'a ticket of this booking has been checked in');
    }
    const attempt = await findAttemptByBooking(tx, b.booking_id);
    mustHaveMoved(await bookings.cancelBooking(tx, b.booking_id), `booking ${b.booking_id} confirmed → cancelled`);
    await bookings.freeSeats(tx, { holdId: b.hold_id, showId: b.show_id, bookingId: b.booking_id });
    await voidTickets(tx, b.booking_id);
    await refundBooking(tx, b, attempt!.provider_payment_id!, 'cancellation');
    cancelled = b;
  });
  const c = cancelled as bookings.BookingRow | null; // assigned in the callback, which TypeScript does not follow
  if (c) ctx.log.info({ event: 'booking.cancelled', ...about(c), refund_amount: Number(c.amount) }, 'booking cancelled by its buyer; the seats are free and the refund is on its way');
  return bookingView((await bookings.findBooking(ctx.db, id))!);
}
