// Bookings: reads, the booking row's lock, and the moves that change the booking
// alone (fail, refund, cancel), each run inside a transaction the caller opened
// (src/app/bookings.ts). A booking is created and confirmed with its hold and seats,
// by the statements in src/db/seatTransitions.ts (enterPayment, confirmPayment).
import type { Queryable } from './client.js';
import { BOOKING_MOVES, type BookingMove, type BookingStatus, type RefundStatus } from '../domain/states.js';
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
  /** Who cancelled a cancelled booking (null: its buyer, before this was recorded, or not cancelled). */
  cancelled_by?: 'buyer' | 'organiser' | null;
}

const BOOKING = `
  select b.id as booking_id, b.hold_id, b.user_id, b.show_id, h.seats, b.amount, b.currency, b.status, b.created_at,
         r.status as refund_status, r.amount as refund_amount, a.failure_code, a.failure_message, b.cancelled_by
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

/** Locks the booking row so that outcomes arriving together (answer, webhook, reconciler) apply once. */
export async function lockBooking(tx: Queryable, bookingId: string): Promise<BookingRow | null> {
  return (await tx.query<BookingRow>(`${BOOKING} where b.id = $1 for update of b`, [bookingId])).rows[0] ?? null;
}

/** One guarded booking move; returns the rows changed (0 when the booking is not in one of the move's `from` states). */
async function moveBooking(tx: Queryable, bookingId: string, move: Exclude<BookingMove, 'confirm'>): Promise<number> {
  const { from, to } = BOOKING_MOVES[move];
  const r = await tx.query(
    `update bookings set status = '${to}', updated_at = now() where id = $1 and ${statusIn(from)}`,
    [bookingId],
  );
  return r.rowCount;
}

/** pending → failed. */
export const failBooking = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'fail');
/** pending | failed → refunded. */
export const markBookingRefunded = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'refund');
/** confirmed → cancelled. */
export const cancelBooking = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'cancel');
/** confirmed | pending → cancelled: the show was cancelled (the caller records who, src/db/showCancellations.ts). */
export const cancelByOrganiser = (tx: Queryable, bookingId: string) => moveBooking(tx, bookingId, 'organiserCancel');

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
