// Bookings: entering payment, confirming, failing, cancelling. Each function runs
// inside a transaction the caller opened (src/app/payments.ts, src/app/bookings.ts).
import type { Queryable } from './client.js';

export interface BookingRow {
  booking_id: string;
  hold_id: string;
  user_id: string;
  show_id: string;
  seats: string[];
  amount: number;
  currency: string;
  status: 'pending' | 'confirmed' | 'failed' | 'cancelled' | 'refunded';
  created_at: Date;
  refund_status: string | null;
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
        set status = 'paying', extended = true,
            expires_at = case when h.extended then h.expires_at
                              else bo_now() + make_interval(secs => s.hold_ttl_seconds) end
       from shows s
      where h.id = $1 and h.user_id = $2 and h.status = 'active' and h.expires_at > bo_now()
        and s.id = h.show_id and s.starts_at > bo_now()
        and (not s.waiting_room or s.id = $3)
     returning h.show_id, h.seats, h.amount, h.currency, h.expires_at`,
    [p.holdId, p.userId, p.admittedShowId],
  );
  const h = hold.rows[0];
  if (!h) return null;
  const seats = await tx.query(
    `with mine as (
       select seat_id from show_seats
        where show_id = $1 and hold_id = $2 and status = 'held'
        order by seat_id
          for update
     )
     update show_seats s set status = 'paying', hold_expires_at = $3
       from mine where s.show_id = $1 and s.seat_id = mine.seat_id`,
    [h.show_id, p.holdId, h.expires_at],
  );
  // An unexpired hold's seats cannot have been claimed by anyone else.
  if (seats.rowCount !== h.seats.length) throw new Error(`hold ${p.holdId} owns ${seats.rowCount} of its ${h.seats.length} seats`);
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

/** Books the hold's paying seats for this booking (seat order). Returns how many seats it got. */
export async function bookSeats(tx: Queryable, b: { bookingId: string; holdId: string; showId: string }): Promise<number> {
  const r = await tx.query(
    `with mine as (
       select seat_id from show_seats
        where show_id = $1 and hold_id = $2 and status = 'paying'
        order by seat_id
          for update
     )
     update show_seats s set status = 'booked', booking_id = $3, hold_expires_at = null,
            version = nextval('seat_version_seq')
       from mine where s.show_id = $1 and s.seat_id = mine.seat_id`,
    [b.showId, b.holdId, b.bookingId],
  );
  await tx.query(
    `insert into booking_seats (booking_id, show_id, seat_id, sold)
     select $1, $2, seat_id, true from show_seats where show_id = $2 and booking_id = $1 and status = 'booked'`,
    [b.bookingId, b.showId],
  );
  return r.rowCount;
}

/** After a decline: the hold is active again until its (already extended) expiry. */
export async function returnSeatsToHold(tx: Queryable, b: { holdId: string; showId: string }): Promise<void> {
  await tx.query(`update holds set status = 'active' where id = $1 and status = 'paying'`, [b.holdId]);
  await tx.query(
    `with mine as (
       select seat_id from show_seats
        where show_id = $1 and hold_id = $2 and status = 'paying'
        order by seat_id
          for update
     )
     update show_seats s set status = 'held', version = nextval('seat_version_seq')
       from mine where s.show_id = $1 and s.seat_id = mine.seat_id`,
    [b.showId, b.holdId],
  );
}

/** Frees every seat this hold or booking still has (paying or booked), in seat order. */
export async function freeSeats(tx: Queryable, b: { holdId: string; showId: string; bookingId: string }): Promise<void> {
  await tx.query(
    `with mine as (
       select seat_id from show_seats
        where show_id = $1 and ((hold_id = $2 and status = 'paying') or (booking_id = $3 and status = 'booked'))
        order by seat_id
          for update
     )
     update show_seats s
        set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null, booking_id = null,
            version = nextval('seat_version_seq')
       from mine where s.show_id = $1 and s.seat_id = mine.seat_id`,
    [b.showId, b.holdId, b.bookingId],
  );
  await tx.query('update booking_seats set sold = false where booking_id = $1', [b.bookingId]);
}

export async function setBookingStatus(tx: Queryable, bookingId: string, status: BookingRow['status']): Promise<void> {
  await tx.query('update bookings set status = $2, updated_at = now() where id = $1', [bookingId, status]);
}

export async function setHoldStatus(tx: Queryable, holdId: string, status: string): Promise<void> {
  await tx.query('update holds set status = $2 where id = $1', [holdId, status]);
}

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
