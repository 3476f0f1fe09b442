// A show's cancellation, on the show's inventory database: the row that stops the
// sale (claim_seats, enterPayment and confirmPayment read it), the worker's queue
// of confirmed bookings to cancel and refund, and the progress an operator reads.
// The catalog's side (the show's status, public listings) is src/db/shows.ts.
import type { Queryable } from './client.js';
import { BOOKING_MOVES } from '../domain/states.js';

/**
 * The lock that orders a show's cancellation (or deletion) after every claim already
 * under way: claim_seats takes it shared before reading the cancellation
 * (migrations/0022_show_cancellation.sql), this takes it exclusively, until commit.
 */
export async function lockShowSale(tx: Queryable, showId: string): Promise<void> {
  await tx.query(`select pg_advisory_xact_lock(hashtextextended('show-cancel/' || $1, 0))`, [showId]);
}

/** Records the cancellation once; false when the show was cancelled already (the first reason stays). */
export async function insertCancellation(tx: Queryable, showId: string, reason: string): Promise<boolean> {
  const r = await tx.query('insert into show_cancellations (show_id, reason) values ($1, $2) on conflict (show_id) do nothing', [showId, reason]);
  return r.rowCount === 1;
}

export interface CancellationRow {
  show_id: string;
  reason: string;
  cancelled_at: Date;
  completed_at: Date | null;
}

export async function findCancellation(db: Queryable, showId: string): Promise<CancellationRow | null> {
  const r = await db.query<CancellationRow>('select show_id, reason, cancelled_at, completed_at from show_cancellations where show_id = $1', [showId]);
  return r.rows[0] ?? null;
}

/** Whether the show is cancelled, read inside the caller's transaction. */
export async function isCancelled(db: Queryable, showId: string): Promise<boolean> {
  const r = await db.query<{ cancelled: boolean }>('select exists (select 1 from show_cancellations where show_id = $1) as cancelled', [showId]);
  return r.rows[0]!.cancelled;
}

/** Cancellations the worker has not finished, oldest first. */
export async function openCancellations(db: Queryable, limit: number): Promise<CancellationRow[]> {
  const r = await db.query<CancellationRow>(
    'select show_id, reason, cancelled_at, completed_at from show_cancellations where completed_at is null order by cancelled_at limit $1',
    [limit],
  );
  return r.rows;
}

/**
 * Cancels up to `refundIds.length` confirmed bookings of the show for the organiser,
 * in one statement: the bookings are taken `for update skip locked` (any number of
 * workers share a stadium's bookings without waiting on each other), each becomes
 * `cancelled` by the organiser, its tickets void, and one refund of its full amount
 * is written with its outbox row (a booking's refund exists at most once:
 * refunds.booking_id is unique). The caller frees the seats in the same transaction
 * (freeSeatsOfBookings). Returns the bookings cancelled.
 */
export async function cancelBookingsForOrganiser(
  tx: Queryable, showId: string, refundIds: readonly string[],
): Promise<{ booking_id: string; hold_id: string; amount: number }[]> {
  const r = await tx.query<{ booking_id: string; hold_id: string; amount: string }>(
    `with picked as (
       select id from bookings where show_id = $1 and status = 'confirmed' order by id limit cardinality($2::text[])
          for update skip locked
     ), cancelled as (
       update bookings b set status = '${BOOKING_MOVES.organiserCancel.to}', cancelled_by = 'organiser', updated_at = now()
         from picked where b.id = picked.id and b.status = 'confirmed'
       returning b.id, b.hold_id, b.amount, b.currency
     ), numbered as (
       select c.*, row_number() over (order by c.id) as n from cancelled c
     ), refunded as (
       insert into refunds (id, booking_id, payment_intent, amount, currency, reason, status)
       select ($2::text[])[n.n], n.id, a.provider_payment_id, n.amount, n.currency, 'cancellation', 'pending'
         from numbered n join payment_attempts a on a.booking_id = n.id
       on conflict (booking_id) do nothing
       returning id
     ), queued as (
       insert into outbox (topic, payload) select 'refund.create', jsonb_build_object('refund_id', id) from refunded
     ), voided as (
       update tickets set status = 'void' where booking_id in (select id from cancelled)
     )
     select id as booking_id, hold_id, amount from cancelled`,
    [showId, refundIds],
  );
  return r.rows.map((b) => ({ ...b, amount: Number(b.amount) }));
}

/** Sets who cancelled a booking the caller has just moved to `cancelled`. */
export async function markCancelledByOrganiser(tx: Queryable, bookingId: string): Promise<void> {
  await tx.query(`update bookings set cancelled_by = 'organiser' where id = $1 and status = 'cancelled'`, [bookingId]);
}

/**
 * The cancellation is complete once no booking of the show is confirmed or pending
 * (a payment in flight): none can appear after the cancellation, whose row every
 * claim, entry into payment and confirmation reads. True when this call completed it.
 */
export async function completeIfDone(db: Queryable, showId: string): Promise<boolean> {
  const r = await db.query(
    `update show_cancellations set completed_at = now()
      where show_id = $1 and completed_at is null
        and not exists (select 1 from bookings where show_id = $1 and status in ('confirmed', 'pending'))`,
    [showId],
  );
  return r.rowCount === 1;
}

export interface CancellationProgress {
  /** Bookings the cancellation refunds: those it cancelled and those still to cancel. */
  bookings_to_refund: number;
  bookings_cancelled: number;
  /** Confirmed bookings not cancelled yet. */
  bookings_remaining: number;
  /** Bookings whose payment is still in flight: refunded if it succeeds. */
  payments_pending: number;
  refunds: { pending: number; succeeded: number; failed: number; amount_refunded: number };
}

/** The cancellation's figures, all by query (through the show's bookings index). */
export async function cancellationProgress(db: Queryable, showId: string): Promise<CancellationProgress> {
  const r = await db.query<{
    cancelled: number; remaining: number; pending: number; r_pending: number; r_succeeded: number; r_failed: number; refunded: string;
  }>(
    `select count(*) filter (where b.status = 'cancelled' and b.cancelled_by = 'organiser')::int as cancelled,
            count(*) filter (where b.status = 'confirmed')::int as remaining,
            count(*) filter (where b.status = 'pending')::int as pending,
            count(r.id) filter (where b.cancelled_by = 'organiser' and r.status = 'pending')::int as r_pending,
            count(r.id) filter (where b.cancelled_by = 'organiser' and r.status = 'succeeded')::int as r_succeeded,
            count(r.id) filter (where b.cancelled_by = 'organiser' and r.status = 'failed')::int as r_failed,
            coalesce(sum(r.amount) filter (where b.cancelled_by = 'organiser' and r.status = 'succeeded'), 0) as refunded
       from bookings b left join refunds r on r.booking_id = b.id
      where b.show_id = $1 and b.status in ('confirmed', 'pending', 'cancelled')`,
    [showId],
  );
  const x = r.rows[0]!;
  return {
    bookings_to_refund: x.cancelled + x.remaining,
    bookings_cancelled: x.cancelled,
    bookings_remaining: x.remaining,
    payments_pending: x.pending,
    refunds: { pending: x.r_pending, succeeded: x.r_succeeded, failed: x.r_failed, amount_refunded: Number(x.refunded) },
  };
}

/**
 * Locks the show's holds (deleting a show): an entry into payment under way holds its
 * hold's row lock, so this waits for it, and the check for bookings made after sees
 * the booking it may have made.
 */
export async function lockShowHolds(tx: Queryable, showId: string): Promise<void> {
  await tx.query('select id from holds where show_id = $1 order by id for update', [showId]);
}

/** Whether any booking (in any state) was ever made for the show. */
export async function everBooked(tx: Queryable, showId: string): Promise<boolean> {
  const r = await tx.query<{ booked: boolean }>('select exists (select 1 from bookings where show_id = $1) as booked', [showId]);
  return r.rows[0]!.booked;
}

/** A deleted show's remaining inventory rows (its figures and its cancellation, if any). */
export async function deleteShowRecords(tx: Queryable, showId: string): Promise<void> {
  await tx.query('delete from show_stats where show_id = $1', [showId]);
  await tx.query('delete from show_cancellations where show_id = $1', [showId]);
}
