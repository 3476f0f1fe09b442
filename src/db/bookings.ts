// Bookings: entering payment, confirming, failing, cancelling. enterPayment and a
// confirmation `atOnce` are whole statements of their own (each may carry the
// request's Idempotency-Key work: its claim, its answer); every other function runs
// inside a transaction the caller opened (src/app/payments.ts, src/app/bookings.ts).
import type { Queryable } from './client.js';
import { BOOKING_MOVES, HOLD_MOVES, type BookingMove, type BookingStatus, type RefundStatus } from '../domain/states.js';
import { bookMove, enterPaymentMove, freeBookingSeats, returnSeatsToHeld } from './seatTransitions.js';
import { moveHold } from './holds.js';
import { statusIn } from './statusGuard.js';

export interface BookingRow {
  booking_id: string;
  hold_id: string;
  user_id: string;
  show_id: string;
  seats: string[];
  amount: number;
  currency: string;
  status: BookingStatus;
  created_at: Date;
  refund_status: RefundStatus | null;
  refund_amount: number | null;
  /** Why its payment failed, as recorded with the payment attempt. */
  failure_code: string | null;
  failure_message: string | null;
}

const BOOKING = `
  select b.id as booking_id, b.hold_id, b.user_id, b.show_id, h.seats, b.amount, b.currency, b.status, b.created_at,
         r.status as refund_status, r.amount as refund_amount, a.failure_code, a.failure_message
    from bookings b
    join holds h on h.id = b.hold_id
    left join refunds r on r.booking_id = b.id
    left join payment_attempts a on a.booking_id = b.id`;

export async function findBooking(db: Queryable, id: string): Promise<BookingRow | null> {
  return (await db.query<BookingRow>(`${BOOKING} where b.id = $1`, [id])).rows[0] ?? null;
}

/** Several bookings by id (in no particular order; unknown ids are left out). */
export async function findBookings(db: Queryable, ids: string[]): Promise<BookingRow[]> {
  return (await db.query<BookingRow>(`${BOOKING} where b.id = any($1::text[])`, [ids])).rows;
}

export async function listBookings(db: Queryable, userId: string): Promise<BookingRow[]> {
  return (await db.query<BookingRow>(`${BOOKING} where b.user_id = $1 order by b.created_at desc, b.id desc limit 500`, [userId])).rows;
}

/** A booking request's Idempotency-Key, claimed by the statement that enters payment. */
export interface KeyClaim {
  /** sha256 of the request's canonical body. */
  fingerprint: string;
  leaseSeconds: number;
  /** A key first used longer ago than this (and not running) is taken afresh. */
  ttlSeconds: number;
}

/** The answer a booking request stores under its key, with the confirmation that makes it true. */
export interface KeyedAnswer {
  userId: string;
  key: string;
  status: number;
  body: unknown;
}

/** What a hold just became when it entered payment: the pending booking's fields. */
export interface EnteredPayment {
  show_id: string;
  seats: string[];
  amount: number;
  currency: string;
  created_at: Date;
}

/**
 * Enters payment for the caller's active hold, in one statement (one round trip, no
 * transaction around it): the hold becomes `paying` (its expiry extended once, on the
 * first attempt), its seats `paying` (locked in seat order), a pending booking with one
 * payment attempt is recorded and the request's idempotency key notes the booking — all
 * before the provider is called. Null when the hold is not the caller's active one, or
 * its show has started (a seat for a show already running is not sold), or its show
 * sells through a waiting room and `admittedShowId` (the show of the caller's verified
 * admission token) is not that show. A hold whose seats are not all its own (it cannot
 * happen to an unexpired hold) aborts the statement with every change it made (bo_assert).
 */
export async function enterPayment(
  db: Queryable,
  p: {
    holdId: string; userId: string; bookingId: string; attemptId: string; paymentMethod: string;
    reconcileAfterSeconds: number; admittedShowId: string | null; idempotencyKey: string;
    /** Claim the key in the same statement (see below) instead of noting the booking on a key claimed before. */
    claim?: KeyClaim;
  },
): Promise<EnteredPayment | null> {
  // With `claim`: the key is claimed first (as claimKey in src/db/idempotency.ts does,
  // the booking's id noted at once), the hold enters payment only if the claim took,
  // and a claim for a hold that did not enter payment undoes the whole statement
  // (GUARD_FAILED): the key stays as it was and the caller takes the slow path
  // (claimKey, then enterPayment without `claim`) to learn why. Null: the key was not free.
  const claim = p.claim ? `claim as (
       insert into idempotency_keys (user_id, key, fingerprint, state, lease_until, booking_id)
       values ($2, $8, $9, 'in_flight', now() + make_interval(secs => $10::int), $4)
       on conflict (user_id, key) do update
         set fingerprint = excluded.fingerprint, state = 'in_flight', lease_until = excluded.lease_until, booking_id = excluded.booking_id,
             response_status = null, response_body = null, created_at = now()
       where idempotency_keys.created_at < now() - make_interval(secs => $11::int)
         and (idempotency_keys.state = 'done' or idempotency_keys.lease_until < now())
       returning 1
     ), ` : '';
  const hold = `${claim}hold as (
       update holds h
          set status = '${HOLD_MOVES.enterPayment.to}', extended = true,
              expires_at = case when h.extended then h.expires_at
                                else bo_now() + make_interval(secs => s.hold_ttl_seconds) end
         from shows s
        where h.id = $1 and h.user_id = $2 and ${statusIn(HOLD_MOVES.enterPayment.from, 'h.status')} and h.expires_at > bo_now()
          and s.id = h.show_id and s.starts_at > bo_now()
          and (not s.waiting_room or s.id = $3)${p.claim ? '\n          and exists (select 1 from claim)' : ''}
       returning h.show_id, h.seats, h.amount, h.currency, h.expires_at
     )`;
  const keyed = p.claim ? '' : `, keyed as (
       update idempotency_keys set booking_id = $4 where user_id = $2 and key = $8 and exists (select 1 from hold)
     )`;
  const owned = `bo_assert((select count(*) from moved) = cardinality(hold.seats), 'hold ' || $1 || ' does not own all its seats')`;
  const result = p.claim
    ? `select hold.show_id, hold.seats, hold.amount, hold.currency, (select created_at from booking) as created_at
         from (select bo_assert(exists (select 1 from hold) or not exists (select 1 from claim),
                                'key claimed for hold ' || $1 || ', which did not enter payment') as ok) g
         left join hold on true
        where g.ok and case when hold.show_id is null then false else ${owned} end`
    : `select show_id, seats, amount, currency, (select created_at from booking) as created_at from hold where ${owned}`;
  const claimParams = p.claim ? [p.claim.fingerprint, p.claim.leaseSeconds, p.claim.ttlSeconds] : [];
  const r = await db.query<EnteredPayment>(
    `${enterPaymentMove(hold, '(select show_id from hold)', '$1', '(select expires_at from hold)')},
     booking as (
       insert into bookings (id, hold_id, user_id, show_id, amount, currency, status, payment_method)
       select $4, $1, $2, show_id, amount, currency, 'pending', $5 from hold
       returning created_at
     ), attempt as (
       insert into payment_attempts (id, booking_id, hold_id, amount, currency, payment_method, status, next_check_at)
       select $6, $4, $1, amount, currency, $5, 'created', bo_now() + make_interval(secs => $7::int) from hold
     )${keyed}
     ${result}`,
    [p.holdId, p.userId, p.admittedShowId, p.bookingId, p.paymentMethod, p.attemptId, p.reconcileAfterSeconds, p.idempotencyKey, ...claimParams],
  );
  return r.rows[0] ?? null;
}

/** Locks the booking row so that outcomes arriving together (answer, webhook, reconciler) apply once. */
export async function lockBooking(tx: Queryable, bookingId: string): Promise<BookingRow | null> {
  return (await tx.query<BookingRow>(`${BOOKING} where b.id = $1 for update of b`, [bookingId])).rows[0] ?? null;
}

/** SQLSTATE of bo_assert (migrations/0013): a guarded statement found things other than it expected and undid itself. */
export const GUARD_FAILED = 'BX001';

/**
 * A payment that succeeded, applied to its pending booking in one statement: the
 * booking row is locked first (the order every path takes: request, webhook and
 * reconciler queue on it), the attempt records the provider's word (unless it had
 * one), the hold's paying seats become booked and are recorded sold, and — only
 * when every seat of the booking was still the hold's — the booking and the hold are
 * confirmed and the tickets queued.
 *
 * `atOnce` (the booking request, outside any transaction): the statement confirms
 * the booking or changes nothing — it aborts with GUARD_FAILED when the booking was
 * no longer pending (an outcome already applied) or seats were lost, and the caller
 * takes the locked path. Otherwise (inside the caller's transaction, the booking
 * locked): `booked` below `seatCount` means seats were lost; the caller frees what was
 * booked and refunds, in the same transaction.
 */
export async function confirmPaidBooking(
  db: Queryable,
  b: {
    bookingId: string; holdId: string; showId: string; attemptId: string; paymentIntentId: string; seatCount: number; atOnce?: boolean;
    /** With `atOnce`: the request's answer, stored under its key by the same statement. */
    answer?: KeyedAnswer;
  },
): Promise<{ booked: number; confirmed: boolean; hold_confirmed: boolean }> {
  if (b.answer && !b.atOnce) throw new Error('an answer is stored only with a confirmation at once');
  const locked = `locked as (
       select hold_id from bookings where id = $1 and ${statusIn(BOOKING_MOVES.confirm.from)} for update
     ), attempt as (
       update payment_attempts set status = 'succeeded', provider_payment_id = coalesce($5, provider_payment_id), resolved_at = now(),
              failure_code = null, failure_message = null
        where id = $4 and status in ('created', 'unknown') and exists (select 1 from locked)
     )`;
  const outcome = `select (select count(*) from moved)::int as booked, exists (select 1 from booking) as confirmed, exists (select 1 from hold) as hold_confirmed`;
  const r = await db.query<{ booked: number; confirmed: boolean; hold_confirmed: boolean }>(
    `${bookMove(locked, '$3', '(select hold_id from locked)', '$1')},
     sold as (
       insert into booking_seats (booking_id, show_id, seat_id, sold) select $1, $3, seat_id, true from moved
     ), booking as (
       update bookings set status = '${BOOKING_MOVES.confirm.to}', updated_at = now()
        where id = $1 and ${statusIn(BOOKING_MOVES.confirm.from)} and (select count(*) from moved) = $6::int
       returning id
     ), hold as (
       update holds set status = '${HOLD_MOVES.confirm.to}' where id = $2 and ${statusIn(HOLD_MOVES.confirm.from)} and exists (select 1 from booking)
       returning id
     ), tickets as (
       insert into outbox (topic, payload) select 'ticket.issue', jsonb_build_object('booking_id', id) from booking
     )${b.answer ? `, answered as (
       update idempotency_keys set state = 'done', lease_until = null, response_status = $7, response_body = $8::jsonb
        where user_id = $9 and key = $10 and exists (select 1 from booking)
     )` : ''}
     ${b.atOnce ? `select * from (${outcome}) o where bo_assert(o.confirmed and o.hold_confirmed, 'booking ' || $1 || ' was not confirmed at once')` : outcome}`,
    [b.bookingId, b.holdId, b.showId, b.attemptId, b.paymentIntentId, b.seatCount,
      ...(b.answer ? [b.answer.status, JSON.stringify(b.answer.body), b.answer.userId, b.answer.key] : [])],
  );
  return r.rows[0]!;
}

/** After a decline: the hold is active again until its (already extended) expiry, its seats held. Returns the hold rows changed. */
export async function returnSeatsToHold(tx: Queryable, b: { holdId: string; showId: string }): Promise<number> {
  const moved = await moveHold(tx, b.holdId, 'decline');
  await returnSeatsToHeld(tx, b);
  return moved;
}

/** Frees every seat this hold or booking still has (paying or booked) and records them unsold. */
export async function freeSeats(tx: Queryable, b: { holdId: string; showId: string; bookingId: string }): Promise<void> {
  await freeBookingSeats(tx, b);
  await tx.query('update booking_seats set sold = false where booking_id = $1', [b.bookingId]);
}

/** One guarded booking move; returns the rows changed (0 when the booking is not in one of the move's `from` states). */
async function moveBooking(tx: Queryable, bookingId: string, move: BookingMove): Promise<number> {
  const { from, to } = BOOKING_MOVES[move];
  const r = await tx.query(
    `update bookings set status = '${to}', updated_at = now() where id = $1 and ${statusIn(from)}`,
    [bookingId],
  );
  return r.rowCount;
}

/** pending → confirmed. */
export const confirmBooking = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'confirm');
/** pending → failed. */
export const failBooking = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'fail');
/** pending | failed → refunded. */
export const markBookingRefunded = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'refund');
/** confirmed → cancelled. */
export const cancelBooking = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'cancel');

/** paying → confirmed. */
export const confirmHold = (tx: Queryable, holdId: string) => moveHold(tx, holdId, 'confirm');
/** paying → expired: its seats were lost. */
export const holdLostSeats = (tx: Queryable, holdId: string) => moveHold(tx, holdId, 'seatsLost');

/**
 * Locks the booking's tickets in ticket id order, so that a check-in arriving
 * meanwhile waits for this transaction and then finds its ticket void; true when
 * one of them is already checked in (the booking is no longer cancellable).
 */
export async function lockTicketsAgainstCheckIn(tx: Queryable, bookingId: string): Promise<boolean> {
  const r = await tx.query<{ checked_in: boolean }>(
    'select checked_in_at is not null as checked_in from tickets where booking_id = $1 order by id for update',
    [bookingId],
  );
  return r.rows.some((t) => t.checked_in);
}

/** The show's cancellation deadline judged by the database clock. */
export async function cancellationOpen(tx: Queryable, showId: string): Promise<boolean> {
  const r = await tx.query<{ open: boolean }>(
    `select bo_now() <= starts_at - make_interval(mins => cancel_until_minutes_before) as open from shows where id = $1`,
    [showId],
  );
  return r.rows[0]?.open ?? false;
}
