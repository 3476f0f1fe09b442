// Cancelling a show, and deleting one nothing was booked for.
//
// Cancelling, the whole way: one transaction on the show's inventory database records
// the cancellation (after every claim already under way: lockShowSale) and releases
// every active hold; from its commit on, claims, entries into payment and
// confirmations refuse the show. The catalog then marks the show cancelled. The
// worker (runCancellations, every inventory database) cancels the confirmed bookings
// a batch per transaction, two statements however large the batch (tickets void,
// one refund each through the outbox, seats freed), and a payment still in flight
// is refunded when it succeeds (applyPaymentOutcome). Every step is re-entrant: a crash anywhere leaves work the
// next pass (or a repeated request) finishes, and the refund is once per booking
// (refunds.booking_id is unique).
import { DomainError, notFound } from '../domain/errors.js';
import { showScopedId } from '../domain/ids.js';
import * as cancellations from '../db/showCancellations.js';
import type { CancellationProgress } from '../db/showCancellations.js';
import { deleteShowHolds, deleteShowSeats, freeSeatsOfBookings, releaseShowHolds } from '../db/seatTransitions.js';
import * as shows from '../db/shows.js';
import { endList } from '../db/waitlist.js';
import type { Database } from '../db/client.js';
import type { Context } from './context.js';

/** Bookings cancelled per transaction: short transactions, and a crash loses at most one batch's work (it is redone). */
const BATCH = 500;
/** Batches per show per pass, so that one stadium does not hold up another show's cancellation for long. */
const BATCHES_PER_PASS = 20;
const SHOWS_PER_PASS = 20;
const REASON_MAX = 500;

export interface CancellationView extends CancellationProgress {
  show_id: string;
  status: 'cancelled';
  reason: string;
  cancelled_at: string;
  /** Every confirmed booking cancelled and no payment in flight: only refunds may still be on their way. */
  completed: boolean;
}

/** The show's settings as the catalog has them, or 404. */
async function catalogShow(ctx: Context, showId: string) {
  const show = await shows.findShowSettings(ctx.db, showId);
  if (!show) throw notFound('show');
  return show;
}

/** Bulk work on a show (a stadium's holds, its bookings): the background's statement bound, not the request's. */
const bulk = (db: Database) => db.as('show_cancellation');

/**
 * Cancels a show: it stops selling at once, every active hold is released, and the
 * worker cancels and refunds every booking. Repeating it changes nothing and answers
 * the same (the first reason stays).
 */
export async function cancelShow(ctx: Context, admin: { userId: string }, showId: string, reason: string): Promise<{ show_id: string; status: 'cancelled'; bookings_to_refund: number }> {
  await catalogShow(ctx, showId);
  const inventory = await ctx.inventory.ofShow(showId);
  const text = reason.slice(0, REASON_MAX);
  const first = await bulk(inventory).transaction(async (tx) => {
    await cancellations.lockShowSale(tx, showId);
    const created = await cancellations.insertCancellation(tx, showId, text);
    if (created) await releaseShowHolds(tx, showId);
    await endList(tx, showId);
    return created;
  });
  // The inventory stops the sale; the catalog's mark follows (the worker makes it too, should this instance die here).
  await shows.markShowCancelled(ctx.db, showId, text);
  ctx.showRules.forget(showId);
  ctx.knownTaken.forgetShow(showId);
  const progress = await cancellations.cancellationProgress(inventory, showId);
  if (first) {
    ctx.log.info({ event: 'show.cancelled', show_id: showId, by: admin.userId, bookings_to_refund: progress.bookings_to_refund, payments_pending: progress.payments_pending },
      'show cancelled: the sale stopped; every booking will be cancelled and refunded');
  }
  return { show_id: showId, status: 'cancelled', bookings_to_refund: progress.bookings_to_refund };
}

/** The cancellation's progress, for operators; 404 for a show that is not cancelled. */
export async function getCancellation(ctx: Context, showId: string): Promise<CancellationView> {
  await catalogShow(ctx, showId);
  const inventory = await ctx.inventory.ofShow(showId);
  const c = await cancellations.findCancellation(inventory, showId);
  if (!c) throw notFound('cancellation');
  const progress = await cancellations.cancellationProgress(inventory, showId);
  return {
    show_id: showId, status: 'cancelled', reason: c.reason, cancelled_at: c.cancelled_at.toISOString(),
    completed: c.completed_at !== null, ...progress,
  };
}

/**
 * Deletes a show nothing was ever booked for (its holds, seats and catalog rows);
 * 409 SHOW_HAS_BOOKINGS otherwise. Ordered after claims under way, like a
 * cancellation; the holds are locked before the check, so an entry into payment
 * under way either made its booking (refused here) or finds no hold.
 */
export async function deleteShow(ctx: Context, showId: string): Promise<void> {
  await catalogShow(ctx, showId);
  const inventory = await ctx.inventory.ofShow(showId);
  await bulk(inventory).transaction(async (tx) => {
    await cancellations.lockShowSale(tx, showId);
    await cancellations.lockShowHolds(tx, showId);
    if (await cancellations.everBooked(tx, showId)) {
      throw new DomainError('SHOW_HAS_BOOKINGS', 'this show has bookings: cancel it instead');
    }
    await deleteShowHolds(tx, showId);
    await deleteShowSeats(tx, showId);
    await cancellations.deleteShowRecords(tx, showId);
  });
  await ctx.db.transaction((tx) => shows.deleteShow(tx, showId));
  ctx.showRules.forget(showId);
  ctx.knownTaken.forgetShow(showId);
  ctx.log.info({ event: 'show.deleted', show_id: showId }, 'show deleted: nothing was ever booked for it');
}

/** One pass over one cancelled show: a few batches of bookings, holds a declined payment gave back released, completion when nothing is left. */
async function workOnShow(ctx: Context, db: Database, c: cancellations.CancellationRow): Promise<number> {
  // The catalog's mark, made again in case the request that cancelled died before making it.
  await shows.markShowCancelled(ctx.db, c.show_id, c.reason);
  let cancelled = 0;
  for (let i = 0; i < BATCHES_PER_PASS; i++) {
    // A batch: the bookings cancelled with their tickets void and refunds queued, then their seats freed; all or nothing.
    const batch = await db.transaction(async (tx) => {
      const done = await cancellations.cancelBookingsForOrganiser(tx, c.show_id, Array.from({ length: BATCH }, () => showScopedId('rfd', c.show_id)));
      if (done.length > 0) {
        await freeSeatsOfBookings(tx, c.show_id, { holdIds: done.map((b) => b.hold_id), bookingIds: done.map((b) => b.booking_id) });
      }
      return done;
    });
    cancelled += batch.length;
    if (batch.length > 0) {
      ctx.log.info({ event: 'show.bookings_cancelled', show_id: c.show_id, bookings: batch.length, amount: batch.reduce((sum, b) => sum + b.amount, 0) },
        'bookings cancelled by the organiser; their refunds are on their way');
    }
    if (batch.length < BATCH) break;
  }
  await db.transaction(async (tx) => {
    await releaseShowHolds(tx, c.show_id);
    await endList(tx, c.show_id);
  });
  if (await cancellations.completeIfDone(db, c.show_id)) {
    ctx.log.info({ event: 'show.cancellation_completed', show_id: c.show_id }, 'show cancellation completed: every booking cancelled, refunds queued');
  }
  return cancelled;
}

/** The worker's pass: every open cancellation on every inventory database; the bookings cancelled. */
export async function runCancellations(ctx: Context): Promise<number> {
  let total = 0;
  for (const inventory of ctx.inventory.all()) {
    const db = bulk(inventory);
    for (const c of await cancellations.openCancellations(db, SHOWS_PER_PASS)) total += await workOnShow(ctx, db, c);
  }
  return total;
}
