// Bookings: pay for a hold once per Idempotency-Key, apply a payment's outcome, read
// bookings, cancel one.
//
// Confirming a booking, the whole way: bookOnce (here) enters payment in one statement
// (enterPayment, src/db/seatTransitions.ts), asks the provider with no lock held
// (charge, src/payments/provider.ts), and applyPaymentOutcome (here) confirms in one
// statement (confirmPayment, src/db/seatTransitions.ts). Every source of an outcome —
// the request, the webhook read back, the reconciler — lands in applyPaymentOutcome;
// whichever learns it first applies it, later arrivals change nothing.
import { createHash } from 'node:crypto';
import { DomainError, notFound } from '../domain/errors.js';
import { newId, showOfId, showScopedId } from '../domain/ids.js';
import type { Database } from '../db/client.js';
import { mustHaveMoved, type BookingStatus, type RefundStatus } from '../domain/states.js';
import * as bookings from '../db/bookings.js';
import { confirmPayment, declinePayment, enterPayment, freeBookedSeats, loseSeats, type EnteredPayment } from '../db/seatTransitions.js';
import { deleteExpiredKeys, releaseKey, renewKey, storeAnswer, takeOverKey, type KeyedAnswer, type KeyRow } from '../db/idempotency.js';
import { findHold } from '../db/holds.js';
import * as payments from '../db/payments.js';
import { enqueue } from '../db/outbox.js';
import { voidTickets } from '../db/tickets.js';
import { holdNeedsAdmission } from '../db/waitingRoom.js';
import { isCancelled, markCancelledByOrganiser } from '../db/showCancellations.js';
import type { ChargeOutcome } from '../payments/provider.js';
import type { Principal } from '../auth/tokens.js';
import { currentRole } from './accounts.js';
import type { Context } from './context.js';
import { QUEUE_REQUIRED } from '../waiting-room/gate.js';
import { offerFreedSeats } from './waitlist.js';

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
  /** Who cancelled it; only on a cancelled booking. */
  cancelled_by?: 'buyer' | 'organiser';
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
    ...(b.status === 'cancelled' ? { cancelled_by: b.cancelled_by ?? 'buyer' } : {}),
    ...(b.status === 'failed' && b.failure_code ? { failure: { code: b.failure_code, message: b.failure_message ?? '' } } : {}),
  };
}

// A running request renews its key's lease every few seconds; a request whose
// instance died leaves a lease that runs out soon, and a repeat then takes over.
export const KEY_LEASE_SECONDS = 15;
const KEY_RENEW_MS = 5000;
const SWEEP_BATCH = 500;
const SWEEP_BATCHES_PER_PASS = 20;

/** When the reconciler first asks the provider about a payment still pending: after the request has given up waiting, and a margin. */
export const reconcileAfterSeconds = (config: { paymentTimeoutMs: number }) => Math.ceil(config.paymentTimeoutMs / 1000) + 5;

export interface BookingRequest {
  key: string;
  /** The body in canonical form (or as sent, when it does not parse): what makes a repeat "the same". */
  canonicalBody: string;
  /** The checked body, or what is wrong with it (answered and stored like any other answer). */
  input: { hold_id: string; payment_method: string } | DomainError;
  /** The show of the caller's verified admission token, or null. */
  admittedShowId?: string | null;
}

/** An answer as the transport sends it; only status and body are stored. */
export interface Answer {
  status: number;
  body: unknown;
}

export type KeyedOutcome<A extends Answer> =
  | { kind: 'reused' }
  | { kind: 'in_flight' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'answered'; answer: A };

/**
 * Pays for the caller's hold at most once per Idempotency-Key. The first request with
 * a key runs the booking and stores its answer (not a 403 QUEUE_REQUIRED, nor a 5xx:
 * those forget the key, so that the same key works again); a repeat with the same body
 * gets that answer back, a different body or a request still running is refused.
 * Answers are kept for IDEMPOTENCY_TTL_HOURS; an older key counts as new. `answer`
 * turns the booking (or what was thrown) into the transport's answer.
 *
 * Two statements, two commits for a paid booking: the key claimed with the hold
 * entering payment; the provider asked (no lock held); the booking confirmed with
 * the answer stored. A lost answer leaves the booking pending for the reconciler.
 */
export async function bookOnce<A extends Answer>(
  ctx: Context,
  buyer: Principal,
  request: BookingRequest,
  answer: { created(view: BookingView): A; failed(err: unknown): A },
): Promise<KeyedOutcome<A>> {
  const { key } = request;
  const input = request.input instanceof DomainError ? null : request.input;
  const admittedShowId = request.admittedShowId ?? null;
  // The booking and its payment name the hold's show, so their ids lead to its shard.
  const showId = input ? showOfId(input.hold_id) : null;
  const ids = showId
    ? { bookingId: showScopedId('bkg', showId), attemptId: showScopedId('pay', showId) }
    : { bookingId: newId('bkg'), attemptId: newId('pay') };
  const fingerprint = createHash('sha256').update(request.canonicalBody).digest('hex');
  // The key lives with the hold it pays for (one statement claims both); a body with no
  // hold in it keeps its key on the first inventory database.
  const db = input ? await ctx.inventory.ofRecord(input.hold_id, { purchase: true }) : ctx.inventory.all()[0]!;
  // Started before the claim: the first renewal comes after KEY_RENEW_MS, by when the
  // key is this request's (or the request has answered without it).
  const renew = setInterval(() => void renewKey(db, buyer.userId, key, KEY_LEASE_SECONDS).catch(() => {}), KEY_RENEW_MS);
  try {
    const entry = await enterPayment(db, {
      holdId: input?.hold_id ?? null, userId: buyer.userId, ...ids, paymentMethod: input?.payment_method ?? null,
      reconcileAfterSeconds: reconcileAfterSeconds(ctx.config), admittedShowId,
      key: { key, fingerprint, leaseSeconds: KEY_LEASE_SECONDS, ttlSeconds: ctx.config.idempotencyTtlHours * 3600 },
    });
    if (!entry.claimed) {
      const seen = repeatOf(entry.key, fingerprint);
      if (seen.kind !== 'take_over') return seen;
      // The first request died after making its booking: this one answers with it.
      if (!(await takeOverKey(db, buyer.userId, key, KEY_LEASE_SECONDS))) return { kind: 'in_flight' };
      return { kind: 'answered', answer: await answerOnce(db, buyer, key, answer, async () => ({
        view: bookingView((await bookings.findBooking(db, seen.bookingId))!), answerStored: false,
      })) };
    }
    return { kind: 'answered', answer: await answerOnce(db, buyer, key, answer, async (storedWith) => {
      if (request.input instanceof DomainError) throw request.input;
      if (!entry.entered) throw await notPayable(db, buyer, request.input.hold_id, admittedShowId);
      return pay(ctx, db, buyer, request.input, ids, entry.entered, storedWith);
    }) };
  } finally {
    clearInterval(renew);
  }
}

/** What a key this request could not claim says: a repeat, a request still running, or one to take over. */
function repeatOf(row: KeyRow | null, fingerprint: string):
  | { kind: 'reused' } | { kind: 'in_flight' } | { kind: 'replay'; status: number; body: unknown } | { kind: 'take_over'; bookingId: string } {
  if (!row) return { kind: 'in_flight' }; // claimed by another request meanwhile
  if (row.fingerprint !== fingerprint) return { kind: 'reused' };
  if (row.state === 'done') return { kind: 'replay', status: row.response_status!, body: row.response_body };
  // A lease that ran out on a key with no booking was claimed afresh by enterPayment.
  if (!row.expired || !row.booking_id) return { kind: 'in_flight' };
  return { kind: 'take_over', bookingId: row.booking_id };
}

/**
 * Runs `book` for the key and stores its answer, unless `book` stored it already with
 * the confirmation (`storedWith` builds that answer); a 5xx or QUEUE_REQUIRED forgets
 * the key (API.md) so that the same key works again.
 */
async function answerOnce<A extends Answer>(
  db: Database, buyer: Principal, key: string, answer: { created(view: BookingView): A; failed(err: unknown): A },
  book: (storedWith: (view: BookingView) => KeyedAnswer) => Promise<{ view: BookingView; answerStored: boolean }>,
): Promise<A> {
  let result: A;
  try {
    const booked = await book((view) => {
      const a = answer.created(view);
      return { userId: buyer.userId, key, status: a.status, body: a.body };
    });
    result = answer.created(booked.view);
    if (booked.answerStored) return result;
  } catch (err) {
    result = answer.failed(err);
    if (result.status >= 500 || (err instanceof DomainError && err.code === 'QUEUE_REQUIRED')) {
      await releaseKey(db, buyer.userId, key);
      return result;
    }
  }
  await storeAnswer(db, buyer.userId, key, result.status, result.body);
  return result;
}

/** The provider asked about the entered booking, its first answer applied; a confirmation stores the request's answer with it. */
async function pay(
  ctx: Context, db: Database, buyer: Principal, input: { hold_id: string; payment_method: string }, ids: { bookingId: string; attemptId: string },
  entered: EnteredPayment, storedWith: (view: BookingView) => KeyedAnswer,
): Promise<{ view: BookingView; answerStored: boolean }> {
  const { bookingId, attemptId } = ids;
  const outcome = await ctx.payments.charge(
    { attemptId, bookingId, holdId: input.hold_id, showId: showOfId(attemptId), amount: entered.amount, currency: entered.currency, paymentMethod: input.payment_method },
    ctx.config.paymentTimeoutMs,
  );
  const pending: bookings.BookingRow = {
    booking_id: bookingId, hold_id: input.hold_id, user_id: buyer.userId, ...entered, status: 'pending',
    refund_status: null, refund_amount: null, failure_code: null, failure_message: null,
  };
  // The view a confirmation would answer with is known before it is made.
  const answer = outcome.kind === 'succeeded' ? storedWith(bookingView({ ...pending, status: 'confirmed' })) : undefined;
  const confirmed = await applyPaymentOutcome(ctx, attemptId, outcome, pending, answer);
  if (confirmed) return { view: bookingView(confirmed.booking), answerStored: confirmed.answerStored };
  return { view: bookingView((await bookings.findBooking(db, bookingId))!), answerStored: false };
}

/** Why a hold could not enter payment: its show needs an admission (403), it never existed (404), or it is not the caller's active hold (409). */
async function notPayable(db: Database, buyer: Principal, holdId: string, admittedShowId: string | null): Promise<DomainError> {
  if (await holdNeedsAdmission(db, holdId, buyer.userId, admittedShowId)) return new DomainError(QUEUE_REQUIRED.code, QUEUE_REQUIRED.message);
  const hold = await findHold(db, holdId);
  if (!hold) return notFound('hold');
  if (hold.user_id === buyer.userId && (await isCancelled(db, hold.show_id))) {
    return new DomainError('SHOW_CANCELLED', 'this show has been cancelled: nothing more is sold for it; nothing was charged');
  }
  return new DomainError('HOLD_EXPIRED', 'the hold is expired, released or not your active hold, or its show has started; nothing was charged');
}

/** What applying an outcome confirmed: the booking as it stands after, and whether the request's answer was stored with it. */
export interface Confirmed {
  booking: bookings.BookingRow;
  answerStored: boolean;
}

/**
 * Applies a payment's outcome to its booking; returns the booking as it stands after
 * when this call confirmed it, else null. `entered`: the booking the request has just
 * entered into payment (no need to read it), and `answer` the request's answer, stored
 * under its key by the confirmation. A success for a pending booking is one statement
 * (confirmPayment) that confirms it or changes nothing; everything else is decided
 * under the booking's row lock.
 */
export async function applyPaymentOutcome(
  ctx: Context, attemptId: string, outcome: ChargeOutcome, entered?: bookings.BookingRow, answer?: KeyedAnswer,
): Promise<Confirmed | null> {
  ctx.metrics.paymentOutcomes.inc({ outcome: outcome.kind });
  const db = await ctx.inventory.ofRecord(attemptId);
  if (outcome.kind === 'unknown') {
    await payments.markAttemptUnknown(db, attemptId, outcome.reason, ctx.config.reconcileBaseSeconds);
    ctx.log.info({ event: 'payment.outcome_unknown', attempt_id: attemptId, booking_id: entered?.booking_id ?? (await payments.findAttempt(db, attemptId))?.booking_id, reason: outcome.reason },
      'payment outcome unknown; the booking stays pending and the reconciler asks the provider again');
    return null;
  }
  if (entered && outcome.kind === 'succeeded' && await confirmPayment(db, paid(entered, attemptId, outcome.paymentIntentId, answer))) {
    ctx.knownTaken.booked(entered.show_id, entered.seats);
    ctx.log.info({ event: 'booking.confirmed', ...about(entered), payment_intent: outcome.paymentIntentId }, 'booking confirmed');
    return { booking: { ...entered, status: 'confirmed' }, answerStored: answer !== undefined };
  }
  // The same answer arriving again (the request's own answer, then its webhook, a
  // duplicate delivery, a late reconciler) was applied in the transaction that
  // recorded it: nothing to do, no transaction, no lock.
  let known = entered?.booking_id;
  if (!known) {
    const attempt = await payments.findAttempt(db, attemptId);
    if (!attempt || attempt.status === outcome.kind) return null;
    known = attempt.booking_id;
  }
  // What this call decided, logged once the transaction has committed.
  const decided: { event?: { event: string; msg: string; [field: string]: unknown }; confirmed?: bookings.BookingRow } = {};
  await db.transaction(async (tx) => {
    const booking = await bookings.lockBooking(tx, known);
    if (!booking) return;
    const where = { holdId: booking.hold_id, showId: booking.show_id };

    if (outcome.kind === 'succeeded' && booking.status === 'pending') {
      // Money was taken: the same one statement, now under the lock.
      if (await confirmPayment(tx, paid(booking, attemptId, outcome.paymentIntentId))) {
        decided.event = { event: 'booking.confirmed', ...about(booking), payment_intent: outcome.paymentIntentId, msg: 'booking confirmed' };
        decided.confirmed = { ...booking, status: 'confirmed' };
        return;
      }
      // The hold no longer had every seat: record the provider's word, free what it had, refund below.
      await payments.resolveAttempt(tx, attemptId, 'succeeded', outcome.paymentIntentId);
      mustHaveMoved(await loseSeats(tx, where), `hold ${booking.hold_id} paying → expired`);
      await offerFreedSeats(tx, booking.show_id);
    } else {
      const failure = outcome.kind === 'failed' ? outcome.failure : null;
      const firstWord = await payments.resolveAttempt(tx, attemptId, outcome.kind, outcome.paymentIntentId, failure);
      if (outcome.kind === 'failed') {
        if (firstWord && booking.status === 'pending') {
          mustHaveMoved(await bookings.failBooking(tx, booking.booking_id), `booking ${booking.booking_id} pending → failed`);
          mustHaveMoved(await declinePayment(tx, where), `hold ${booking.hold_id} paying → active`);
          decided.event = { event: 'booking.failed', ...about(booking), reason: outcome.failure.code, msg: 'booking failed: the payment was refused; the seats are back in the hold' };
        }
        return;
      }
      if (booking.status === 'confirmed' || booking.status === 'cancelled') return; // this very payment, seen again
    }
    // Money was taken for a show cancelled meanwhile (confirmPayment refused it): the
    // booking is cancelled by the organiser and refunded in full.
    if (booking.status === 'pending' && await isCancelled(tx, booking.show_id)) {
      mustHaveMoved(await bookings.cancelByOrganiser(tx, booking.booking_id), `booking ${booking.booking_id} pending → cancelled`);
      await markCancelledByOrganiser(tx, booking.booking_id);
      await refundBooking(tx, booking, outcome.paymentIntentId, 'cancellation');
      decided.event = { event: 'booking.cancelled', ...about(booking), cancelled_by: 'organiser', payment_intent: outcome.paymentIntentId, msg: 'booking paid after its show was cancelled: cancelled and refunded' };
      return;
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
  if (decided.confirmed) ctx.knownTaken.booked(decided.confirmed.show_id, decided.confirmed.seats);
  return decided.confirmed ? { booking: decided.confirmed, answerStored: false } : null;
}

const paid = (b: bookings.BookingRow, attemptId: string, paymentIntentId: string, answer?: KeyedAnswer) => ({
  bookingId: b.booking_id, holdId: b.hold_id, showId: b.show_id, attemptId, paymentIntentId, seatCount: b.seats.length, ...(answer ? { answer } : {}),
});

/** What a business event says about a booking: ids and money, never a token, key or card. */
export function about(b: { booking_id: string; show_id: string; hold_id: string; seats: readonly string[]; amount: number | string; currency: string }) {
  return { booking_id: b.booking_id, show_id: b.show_id, hold_id: b.hold_id, seats: b.seats.length, amount: Number(b.amount), currency: b.currency };
}

/** Writes the booking's one refund and its outbox row; a second call for the same booking does nothing. */
export async function refundBooking(
  tx: Parameters<typeof enqueue>[0],
  booking: { booking_id: string; show_id: string; amount: number; currency: string },
  paymentIntentId: string,
  reason: 'cancellation' | 'seats_lost',
): Promise<void> {
  const refundId = showScopedId('rfd', booking.show_id);
  const created = await payments.insertRefund(tx, {
    id: refundId, bookingId: booking.booking_id, paymentIntentId, amount: booking.amount, currency: booking.currency, reason,
  });
  if (created) await enqueue(tx, 'refund.create', { refund_id: refundId });
}

/** The booking the caller (or an admin) may see; others' bookings answer 404. */
export async function getBooking(ctx: Context, caller: Principal, id: string): Promise<BookingView> {
  const { found: b } = await ctx.inventory.findRecord(id, (db) => bookings.findBooking(db, id));
  // Someone else's booking: only for an admin, by the role the database holds now
  // (a token keeps the role it was issued with).
  const allowed = b && (b.user_id === caller.userId || (await currentRole(ctx, caller.userId)) === 'admin');
  if (!allowed) throw notFound('booking');
  return bookingView(b);
}

/** The caller's bookings, newest first; a token whose account is gone is refused, not answered with an empty list. */
export async function listBookings(ctx: Context, caller: Principal): Promise<{ bookings: BookingView[] }> {
  // Across every inventory database: a buyer's bookings may be on several shards.
  const [role, ...found] = await Promise.all([currentRole(ctx, caller.userId), ...ctx.inventory.all().map((db) => bookings.listBookings(db, caller.userId))]);
  if (!role) throw new DomainError('UNAUTHENTICATED', 'this account no longer exists');
  const rows = found.length === 1 ? found[0]! : found.flat().sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.booking_id < b.booking_id ? 1 : -1)).slice(0, 500);
  return { bookings: rows.map(bookingView) };
}

/**
 * Cancels a confirmed booking within the show's window and before any of its
 * tickets is checked in: one transaction frees the seats, voids the tickets and
 * writes the refund to the outbox. A repeat answers the same and refunds nothing more.
 */
export async function cancelBooking(ctx: Context, caller: Principal, id: string): Promise<BookingView> {
  let cancelled: bookings.BookingRow | null = null;
  const db = await ctx.inventory.ofRecord(id);
  await db.transaction(async (tx) => {
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
    const attempt = await payments.findAttemptByBooking(tx, b.booking_id);
    mustHaveMoved(await bookings.cancelBooking(tx, b.booking_id), `booking ${b.booking_id} confirmed → cancelled`);
    await freeBookedSeats(tx, { holdId: b.hold_id, showId: b.show_id, bookingId: b.booking_id });
    await offerFreedSeats(tx, b.show_id);
    await voidTickets(tx, b.booking_id);
    await refundBooking(tx, b, attempt!.provider_payment_id!, 'cancellation');
    cancelled = b;
  });
  const c = cancelled as bookings.BookingRow | null; // assigned in the callback, which TypeScript does not follow
  // Before the answer: the seats are free for the next hold this instance decides.
  if (c) ctx.knownTaken.freed(c.show_id, c.seats);
  if (c) ctx.log.info({ event: 'booking.cancelled', ...about(c), refund_amount: Number(c.amount) }, 'booking cancelled by its buyer; the seats are free and the refund is on its way');
  return bookingView((await bookings.findBooking(db, id))!);
}

/** Forgets stored answers past their time, oldest first, in short batches; the number forgotten. */
export async function sweepExpiredKeys(ctx: Context): Promise<number> {
  let swept = 0;
  for (const db of ctx.inventory.all()) {
    for (let i = 0; i < SWEEP_BATCHES_PER_PASS; i++) {
      const n = await deleteExpiredKeys(db, ctx.config.idempotencyTtlHours * 3600, SWEEP_BATCH);
      swept += n;
      if (n < SWEEP_BATCH) break;
    }
  }
  return swept;
}
