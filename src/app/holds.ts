// Holds: take seats for a buyer, read a hold, release it.
import { DomainError, notFound, type Refusal } from '../domain/errors.js';
import { checkBestAvailable, checkRequestedSeats, refusal, refusedBeforeSeats, type BestAvailableRequest } from '../domain/holds.js';
import { showScopedId } from '../domain/ids.js';
import * as holds from '../db/holds.js';
import { claimBestSeats, claimSeats, releaseSeats, type BestClaimResult, type ClaimResult } from '../db/seatTransitions.js';
import { sqlState } from '../db/sqlstate.js';
import type { Database } from '../db/client.js';
import type { Principal } from '../auth/tokens.js';
import type { Context } from './context.js';
import type { HallLayout } from './hallCatalog.js';
import { admissionOf, holdGate } from '../waiting-room/gate.js';
import { offerFreedSeats } from './waitlist.js';
import { knownTooFew } from './knownTaken.js';

export interface HoldView {
  hold_id: string;
  show_id: string;
  seats: string[];
  status: string;
  expires_at: string;
  amount: number;
  currency: string;
}

/** What a claim answers that every kind of hold reads. */
interface Claimed {
  outcome: string;
  expires_at: Date | null;
  amount: number | null;
  currency: string | null;
}

/** One kind of hold request: chosen seats or best available. */
interface HoldRequest<C extends Claimed> {
  /** Checked against the hall in memory, before anything else is asked (400). */
  check(layout: HallLayout): void;
  /** Seats asked for, for the waiting room's gate. */
  count: number;
  claim(db: Database, holdId: string): Promise<C>;
  /** The claim's refusal, when what this instance knows taken already decides it (./knownTaken.ts); else null. */
  known(layout: HallLayout): C | null;
  /** The outcome counted as a lost race in the show's tally. */
  conflict: string;
  /** The metrics label of an outcome. */
  label(outcome: string): string;
  seats(claim: C): string[];
  refused(claim: C): Refusal;
}

/** A hold made, or refused (`inMemory`: from seats this instance knew were taken, without the database). */
export type HoldAnswer = { hold: HoldView } | { refused: Refusal; inMemory?: true };

/** A claim's fields when it claimed nothing. */
const NOT_CLAIMED = { taken: null, expires_at: null, amount: null, currency: null, seat_limit: null, seats_had: null, opens_at: null } as const;

/**
 * Plan outside (the request checked against the hall in memory, the waiting room's
 * gate decided in process), then one claim round trip decides. The claim's refusals
 * come back as data; only rare failures are thrown.
 */
async function holdFor<C extends Claimed>(
  ctx: Context, buyer: Principal, showId: string, admissionToken: string | string[] | undefined, r: HoldRequest<C>,
): Promise<HoldAnswer> {
  const stop = ctx.metrics.holdDuration.startTimer();
  let result = 'error';
  try {
    const layout = ctx.halls.known(showId) ?? (await ctx.halls.forShow(showId));
    if (!layout) {
      result = 'show_not_found';
      throw notFound('show');
    }
    try {
      r.check(layout);
    } catch (err) {
      result = 'invalid_seats';
      throw err;
    }
    const rule = await ctx.showRules.get(showId);
    // Known cancelled here already: refused before the gate (the claim refuses it too, and decides the race).
    if (rule?.cancelled) {
      result = 'show_cancelled';
      return { refused: refusal('show_cancelled') };
    }
    if (rule?.waitingRoom) {
      const admission = admissionOf(ctx.room.tokens, admissionToken, buyer.userId);
      const refused = holdGate(rule, ctx.showRules.dbNow(), r.count, admission, showId);
      if (refused) {
        result = `gate_${refused.code.toLowerCase()}`;
        return { refused };
      }
      ctx.room.present(showId, admission!.position);
    }
    // The account first: no foreign key tells a shard that an account is gone (./knownAccounts.ts).
    if (!(await ctx.accounts.exists(buyer.userId))) throw new DomainError('UNAUTHENTICATED', 'this account no longer exists');
    const holdId = showScopedId('hold', showId);
    const sentAt = ctx.showRules.dbNow();
    // Seats known taken decide only once what the claim checks before the seats passes (on the rules in memory;
    // a cancelled show was refused above).
    const known = rule && ctx.knownTaken.answering && !refusedBeforeSeats(rule, sentAt, r.count) ? r.known(layout) : null;
    if (known) ctx.metrics.holdsRefusedFromMemory.inc();
    const claim = known ?? await claimOnItsShard(ctx, showId, (db) => r.claim(db, holdId));
    result = r.label(claim.outcome);
    if (claim.outcome === 'held') {
      // Taken until the hold can lapse, on the database's clock: at its expiry, and no later than its time
      // to live after the claim was sent as this instance reckons that clock (should the estimate lag).
      const ttlMs = (rule?.holdTtlSeconds ?? 0) * 1000;
      ctx.knownTaken.held(showId, r.seats(claim), Math.min(sentAt + ttlMs, claim.expires_at!.getTime()));
      ctx.holdTally.count(showId, 'created');
    } else if (claim.outcome === r.conflict) ctx.holdTally.count(showId, 'conflict');
    if (claim.outcome !== 'held') return { refused: r.refused(claim), ...(known ? { inMemory: true } : {}) };
    return { hold: {
      hold_id: holdId,
      show_id: showId,
      seats: r.seats(claim),
      status: 'active',
      expires_at: claim.expires_at!.toISOString(),
      amount: claim.amount!,
      currency: claim.currency!,
    } };
  } finally {
    ctx.metrics.holdAttempts.inc({ result });
    stop();
  }
}

/** Holds every requested seat for the buyer, or none. */
export function holdSeats(
  ctx: Context, buyer: Principal, showId: string, seats: readonly string[], admissionToken: string | string[] | undefined,
): Promise<HoldAnswer> {
  return holdFor(ctx, buyer, showId, admissionToken, {
    check: (layout) => checkRequestedSeats(seats, layout.seatIds),
    count: seats.length,
    claim: (db, holdId) => claimSeats(db, { showId, holdId, userId: buyer.userId, seats }),
    known: (): ClaimResult | null => {
      const taken = ctx.knownTaken.takenOf(showId, seats);
      return taken.length === 0 ? null : { ...NOT_CLAIMED, outcome: 'seat_unavailable', taken };
    },
    conflict: 'seat_unavailable',
    label: (outcome) => outcome,
    seats: () => [...seats],
    refused: (c) => refusal(c.outcome as Parameters<typeof refusal>[0], { taken: c.taken, seatLimit: c.seat_limit, seatsHad: c.seats_had, opensAt: c.opens_at }),
  });
}

/** A hall's sections and tiers, worked out once per layout (a stadium has 60,000 seats). */
const facets = new WeakMap<HallLayout, { sections: Set<string>; tiers: Set<string> }>();
function facetsOf(layout: HallLayout): { sections: Set<string>; tiers: Set<string> } {
  let f = facets.get(layout);
  if (!f) {
    f = { sections: new Set(layout.seats.flatMap((s) => (s.section === null ? [] : [s.section]))), tiers: new Set(layout.seats.map((s) => s.tier)) };
    facets.set(layout, f);
  }
  return f;
}

/**
 * Best available: the service chooses `count` adjacent seats matching the filters and
 * holds them in the same single claim as chosen seats (claim_best_seats), all or none,
 * under the same per-user limit; NOT_ENOUGH_SEATS when no such seats are left.
 */
export function holdBestSeats(
  ctx: Context, buyer: Principal, showId: string, best: BestAvailableRequest, admissionToken: string | string[] | undefined,
): Promise<HoldAnswer> {
  return holdFor(ctx, buyer, showId, admissionToken, {
    check: (layout) => checkBestAvailable(best, facetsOf(layout)),
    count: best.count,
    claim: (db, holdId) => claimBestSeats(db, {
      showId, holdId, userId: buyer.userId, count: best.count,
      section: best.section ?? null, tier: best.tier ?? null, maxPrice: best.max_price ?? null,
    }),
    // Filters would need the seats' sections, tiers and prices: only an unfiltered request is judged in memory.
    known: (layout): BestClaimResult | null => ((best.section ?? best.tier ?? best.max_price ?? null) === null
      && knownTooFew(ctx.knownTaken, showId, layout, best.count) ? { ...NOT_CLAIMED, outcome: 'not_enough_seats', seats: null } : null),
    conflict: 'not_enough_seats',
    label: (outcome) => `best_${outcome}`,
    seats: (c) => c.seats!,
    refused: (c) => refusal(c.outcome as Parameters<typeof refusal>[0], { seatLimit: c.seat_limit, seatsHad: c.seats_had, opensAt: c.opens_at, countPath: '/best_available/count' }),
  });
}

/**
 * One claim on the show's shard, and once more on the fresh placement when the show
 * was not where this instance's placement said (it moved).
 */
async function claimOnItsShard<C extends { outcome: string }>(
  ctx: Context, showId: string, claim: (db: Database) => Promise<C>,
): Promise<C> {
  const claimOn = (db: Database) => claim(db).catch((err: unknown) => {
    // A validly signed token whose account no longer exists (e.g. a database reset under a fixed secret).
    if (sqlState(err) === '23503') throw new DomainError('UNAUTHENTICATED', 'this account no longer exists');
    throw err;
  });
  const tried = await ctx.inventory.ofShow(showId, { purchase: true });
  const first = await claimOn(tried);
  if (first.outcome === 'moved') {
    // The show's inventory left the shard this instance's placement named (the claim
    // waited through the move, or came after it): 503 with Retry-After, and the
    // placement read afresh now, so the client's retry goes to the new shard. Without
    // the read, an instance with a long PLACEMENT_REFRESH_MS answered `moved` until its
    // next refresh.
    await ctx.inventory.moved(showId, tried).catch(() => null);
    return first;
  }
  if (first.outcome !== 'show_not_found') return first;
  const moved = await ctx.inventory.moved(showId, tried);
  return moved ? claimOn(moved) : first;
}

/** The caller's own hold; someone else's answers 404 like a missing one. */
export async function getHold(ctx: Context, caller: Principal, holdId: string): Promise<HoldView> {
  const { found: hold } = await ctx.inventory.findRecord(holdId, (db) => holds.findHold(db, holdId));
  if (!hold || hold.user_id !== caller.userId) throw notFound('hold');
  const { user_id: _owner, expires_at, ...rest } = hold;
  return { ...rest, expires_at: expires_at.toISOString() };
}

/**
 * Releases the caller's hold; its seats are holdable at once. Repeating it is
 * harmless; a hold that is being paid or became a booking is refused.
 */
export async function releaseHold(ctx: Context, caller: Principal, holdId: string): Promise<void> {
  const { db, found: hold } = await ctx.inventory.findRecord(holdId, (d) => holds.findHold(d, holdId));
  if (!hold || hold.user_id !== caller.userId) throw notFound('hold');
  // Before the answer: the buyer's next hold, here, must find them free.
  ctx.knownTaken.freed(hold.show_id, hold.seats);
  // One statement: the hold released and its seats free (an expired hold stays expired: its seats are free already);
  // in the same transaction, offered to the show's waiting list first (src/app/waitlist.ts).
  const released = await db.transaction(async (tx) => {
    const r = await releaseSeats(tx, holdId, caller.userId);
    if (r.released) await offerFreedSeats(tx, hold.show_id);
    return r.released;
  });
  if (released) return;
  // Nothing released: already over, or a payment took it in the meantime.
  const now = await holds.findHold(db, holdId);
  if (now?.status === 'paying') throw new DomainError('HOLD_PAYING', 'a payment for this hold is in flight');
  if (now?.status === 'confirmed') throw new DomainError('HOLD_CONFIRMED', 'this hold became a booking: cancel the booking instead');
}
