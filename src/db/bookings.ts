// Bookings: entering payment, confirming, failing, cancelling. Each function runs
// inside a transaction the caller opened (src/app/payments.ts, src/app/bookings.ts).
import type { Queryable } from './client.js';
import { BOOKING_MOVES, HOLD_MOVES, type BookingMove, type BookingStatus, type RefundStatus } from '../domain/states.js';
import { bookPayingSeats, enterPaymentSeats, freeBookingSeats, returnSeatsToHeld } from './seatTransitions.js';
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

export async function listBookings(db: Queryable, userId: string): Promise<BookingRow[]> {
  return (await db.query<BookingRow>(`${BOOKING} where b.user_id = $1 order by b.created_at desc, b.id desc limit 500`, [userId])).rows;
}

/**
 * Enters payment for the caller's active hold: the hold becomes `paying` (its
 * expiry extended once, on the first attempt), its seats `paying` (locked in seat
 * order), and a pending booking with one payment attempt is recorded — all
 * before the provider is called. Null when the hold is not the caller's active one,
 * or its show has started (a seat for a show already running is not sold), or its
 * show sells through a waiting room and `admittedShowId` (the show of the caller's
 * verified admission token) is not that show.
 */
export async function enterPayment(
  tx: Queryable,
  p: { holdId: string; userId: string; bookingId: string; attemptId: string; paymentMethod: string; reconcileAfterSeconds: number; admittedShowId: string | null },
): Promise<{ show_id: string; seats: string[]; amount: number; currency: string } | null> {
  const hold = await tx.query<{ show_id: string; seats: string[]; amount: number; currency: string; expires_at: Date }>(
    `update holds h
        set status = '${HOLD_MOVES.enterPayment.to}', extended = true,
            expires_at = case when h.extended then h.expires_at
                              else bo_now() + make_interval(secs => s.hold_ttl_seconds) end
       from shows s
      where h.id = $1 and h.user_id = $2 and ${statusIn(HOLD_MOVES.enterPayment.from, 'h.status')} and h.expires_at > bo_now()
        and s.id = h.show_id and s.starts_at > bo_now()
        and (not s.waiting_room or s.id = $3)
     returning h.show_id, h.seats, h.amount, h.currency, h.expires_at`,
    [p.holdId, p.userId, p.admittedShowId],
  );
  const h = hold.rows[0];
  if (!h) return null;
  const seats = await enterPaymentSeats(tx, { showId: h.show_id, holdId: p.holdId, until: h.expires_at });
  // An unexpired hold's seats cannot have been claimed by anyone else.
  if (seats.length !== h.seats.length) throw new Error(`hold ${p.holdId} owns ${seats.length} of its ${h.seats.length} seats`);
  await tx.query(
    `insert into bookings (id, hold_id, user_id, show_id, amount, currency, status, payment_method)
     values ($1, $2, $3, $4, $5, $6, 'pending', $7)`,
    [p.bookingId, p.holdId, p.userId, h.show_id, h.amount, h.currency, p.paymentMethod],
  );
  await tx.query(
    `insert into payment_attempts (id, booking_id, hold_id, amount, currency, payment_method, status, next_check_at)
     values ($1, $2, $3, $4, $5, $6, 'created', bo_now() + make_interval(secs => $7))`,
    [p.attemptId, p.bookingId, p.holdId, h.amount, h.currency, p.paymentMethod, p.reconcileAfterSeconds],
  );
  return h;
}

/** Locks the booking row so that outcomes arriving together (answer, webhook, reconciler) apply once. */
export async function lockBooking(tx: Queryable, bookingId: string): Promise<BookingRow | null> {
  return (await tx.query<BookingRow>(`${BOOKING} where b.id = $1 for update of b`, [bookingId])).rows[0] ?? null;
}

/** Books the hold's paying seats for this booking and records them sold. Returns how many seats it got. */
export async function bookSeats(tx: Queryable, b: { bookingId: string; holdId: string; showId: string }): Promise<number> {
  const seats = await bookPayingSeats(tx, b);
  await tx.query(
    `insert into booking_seats (booking_id, show_id, seat_id, sold)
     select $1, $2, seat_id, true from unnest($3::text[]) as seat_id`,
    [b.bookingId, b.showId, seats],
  );
  return seats.length;
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
