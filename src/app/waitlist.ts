// The waiting list of a sold-out show: join, look, leave; and the offer pass that
// hands freed seats to the first entry that fits, before anyone else's map.
//
// The guarantee (docs/waiting-list.md): seats freed by a release, a cancellation or a
// paid hold that lost its seats are offered in the transaction that frees them; seats
// freed by time (an expired hold, a lapsed offer) are offered by the offer worker's next
// pass. Both run offerFreedSeats, which reads the seats' state itself rather than a
// queue of "freed" events, so there is no state between freed and offered to lose: a
// seat is held, booked, or free — and a free seat of a show with a fitting entry is
// offered by the next pass that can lock it.
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import { showScopedId } from '../domain/ids.js';
import type { Database, Queryable } from '../db/client.js';
import * as list from '../db/waitlist.js';
import { offerSeats, releaseSeats, type Offer } from '../db/seatTransitions.js';
import type { Principal } from '../auth/tokens.js';
import type { Context } from './context.js';

export interface EntryView {
  position: number;
  count: number;
  status: list.EntryStatus;
  hold_id?: string;
  expires_at?: string;
}

function view(e: list.EntryRow): EntryView {
  const offer = e.status === 'offered' || e.status === 'booked';
  return {
    position: e.position, count: e.count, status: e.status,
    ...(offer && e.hold_id ? { hold_id: e.hold_id } : {}),
    ...(e.status === 'offered' && e.expires_at ? { expires_at: e.expires_at.toISOString() } : {}),
  };
}

/**
 * Joins the show's list for `count` seats (or changes the count of a waiting entry,
 * keeping its place). Refused while `count` adjacent seats are free (buy them), after
 * the start, and beyond the show's per-user limit. `created` is false for a repeat.
 */
export async function joinWaitlist(ctx: Context, buyer: Principal, showId: string, count: number): Promise<{ entry: EntryView; created: boolean }> {
  const db = await ctx.inventory.ofShow(showId);
  const facts = await list.joinRules(db, showId);
  if (!facts) throw notFound('show');
  if (!Number.isInteger(count) || count < 1 || count > facts.per_user_limit) {
    throw validationFailed(`count must be 1..${facts.per_user_limit}`, [{ path: '/count', message: `must be 1..${facts.per_user_limit}` }]);
  }
  if (facts.cancelled) throw new DomainError('SHOW_CANCELLED', 'this show has been cancelled: nobody joins its waiting list');
  if (facts.started) throw new DomainError('SALE_CLOSED', 'the show has started');
  let created = false;
  await db.transaction(async (tx) => {
    await list.lockList(tx, showId);
    const entry = await list.findEntry(tx, showId, buyer.userId);
    if (entry?.status === 'waiting') return list.changeCount(tx, showId, buyer.userId, count);
    if (entry?.status === 'offered') return; // an open offer stands as it is
    // Checked under the list's lock: an offer pass cannot be handing these seats out meanwhile.
    if (await list.adjacentSeatsFree(tx, showId, count)) {
      throw new DomainError('SEATS_AVAILABLE', `${count} adjacent seats are free: hold them instead`);
    }
    await list.joinAtBack(tx, showId, buyer.userId, count);
    created = true;
  });
  const entry = (await list.findEntry(db, showId, buyer.userId))!;
  if (created) ctx.log.info({ event: 'waitlist.joined', show_id: showId, position: entry.position, count }, 'joined the waiting list');
  return { entry: view(entry), created };
}

/** The caller's entry; 404 when they are not on the list. */
export async function myEntry(ctx: Context, buyer: Principal, showId: string): Promise<EntryView> {
  const db = await ctx.inventory.ofShow(showId);
  const entry = await list.findEntry(db, showId, buyer.userId);
  if (!entry) throw notFound('waiting list entry');
  return view(entry);
}

/**
 * Leaves the list. An open offer is given up with it: its hold released and its seats
 * offered onward, in the same transaction. A payment in flight keeps its hold.
 */
export async function leaveWaitlist(ctx: Context, buyer: Principal, showId: string): Promise<void> {
  const db = await ctx.inventory.ofShow(showId);
  // Most leave while waiting (all at once when a show sells out): one row each, not queued
  // behind joins and offer passes on the list's lock. Only an open offer needs it.
  if (await list.leaveWhileWaiting(db, showId, buyer.userId)) return;
  await db.transaction(async (tx) => {
    await list.lockList(tx, showId);
    const { left, holdId } = await list.leave(tx, showId, buyer.userId);
    if (left && holdId && (await releaseSeats(tx, holdId, buyer.userId)).released) await offerFreedSeats(tx, showId);
  });
}

/**
 * One offer pass over a show's list, inside the caller's transaction: every waiting
 * entry in line order gets an offer when `count` adjacent free seats exist, the first
 * that fits first (an entry that does not fit lets the next one try; nor does one whose
 * buyer would pass the show's per-user limit with the seats they hold, pay for or have
 * booked). Holds the list's
 * lock to the end of the transaction, so two passes never offer to one entry or one
 * seat twice. Cheap for a show nobody waits for, or with no free seat: one read.
 */
export async function offerFreedSeats(tx: Queryable, showId: string): Promise<(Offer & { user_id: string })[]> {
  const facts = await list.offerFacts(tx, showId);
  if (!facts.waiting || facts.free === 0) return [];
  let free = facts.free;
  await list.lockList(tx, showId);
  const offers: (Offer & { user_id: string })[] = [];
  // No run of n adjacent free seats means no longer run either: skip entries that large.
  let unfit = Infinity;
  for (const entry of await list.waitingEntries(tx, showId)) {
    if (free === 0) break;
    if (entry.count > free || entry.count >= unfit) continue;
    const offer = await offerSeats(tx, { showId, userId: entry.user_id, count: entry.count, holdId: showScopedId('hold', showId) });
    // Over the per-user limit with the seats the buyer has now: not offered, keeps its place
    // (fits again once the buyer's other holds end); says nothing about the free runs.
    if (offer === 'over_limit') continue;
    if (offer) {
      offers.push({ ...offer, user_id: entry.user_id });
      free -= entry.count;
    } else unfit = entry.count;
  }
  return offers;
}

/**
 * The offer worker's pass over one inventory database: every show with someone
 * waiting gets an offer pass of its own (one short transaction each). It scans the
 * seats, not a queue of events, so a pass missed (a crash, a lock taken) is made up by
 * the next one: a freed seat is never skipped, only offered later. Returns how many
 * shows have someone waiting: while any has, the worker keeps its full pace (a seat
 * freed by expiry goes to the list before buyers see it free on the map); with none,
 * it may look less often.
 */
export async function offerRound(db: Database, log: Context['log']): Promise<number> {
  const shows = await list.showsWithWaiting(db);
  for (const showId of shows) {
    const offers = await db.transaction((tx) => offerFreedSeats(tx, showId));
    for (const o of offers) log.info({ event: 'waitlist.offered', show_id: showId, hold_id: o.hold_id, seats: o.seats.length }, 'seats offered to the waiting list');
  }
  return shows.length;
}
