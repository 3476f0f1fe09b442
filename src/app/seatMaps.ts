// The seat map of a show: built from the database, kept in memory for a short
// while so a hot show's map costs one query per instance per interval, however
// many browsers ask. The contract allows it to be up to 2 s stale; correctness
// comes from the claim, never from the map.
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/client.js';
import { seatStates, type SeatStates } from '../db/seats.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { stillPending } from '../db/seatChanges.js';
import type { HallCatalog } from './hallCatalog.js';
import { SeatMapSnapshot, type MapSeat } from './seatMapSnapshot.js';

/** The map (`etag`, `version`, `body`) and the answers made from the same read (sections, a section). */
export type SeatMapAnswer = SeatMapSnapshot;

interface Entry {
  at: number;
  answer: Promise<SeatMapAnswer | null>;
  /** The answer once built, for readers that need not wait a turn of the event loop. */
  ready?: SeatMapAnswer;
}

export class SeatMaps {
  private readonly entries = new Map<string, Entry>();

  /** `db`: the inventory database, or where each show's is (ctx.inventory.ofShow). */
  constructor(
    private readonly db: Queryable | ((showId: string) => Promise<Queryable>),
    private readonly halls: HallCatalog,
    private readonly maxAgeMs: number,
    /** How long a read waits for the publisher to count changes it saw (0: it does not wait). */
    private readonly pendingWaitMs = 0,
  ) {}

  /** The map, from memory when fresh enough (`ready` when already built); concurrent misses share one build. */
  get(showId: string): { answer: Promise<SeatMapAnswer | null>; cached: boolean; ready?: SeatMapAnswer } {
    const now = Date.now();
    const entry = this.entries.get(showId);
    if (entry && now - entry.at < this.maxAgeMs) return { answer: entry.answer, cached: true, ready: entry.ready };
    const answer = this.build(showId, entry?.answer);
    if (this.maxAgeMs > 0) {
      if (this.entries.size > 5_000) this.entries.clear();
      const fresh: Entry = { at: now, answer };
      this.entries.set(showId, fresh);
      answer.then((a) => { if (a) fresh.ready = a; else this.entries.delete(showId); }, () => this.entries.delete(showId));
    }
    return { answer, cached: false };
  }

  /** The map when it is built and fresh enough; never starts a read (a miss is undefined). */
  cached(showId: string): SeatMapAnswer | undefined {
    const entry = this.entries.get(showId);
    return entry && Date.now() - entry.at < this.maxAgeMs ? entry.ready : undefined;
  }

  /**
   * The show's seats, read when the changes committed before the read began are
   * counted in its version: a buyer's own hold counts in the version and ETag they
   * read next. A read never publishes (publishing is serialized per shard); when it
   * saw changes of the show not published yet, it waits for the feed's publisher
   * (every instance runs one each FEED_INTERVAL_MS) to publish those, then reads
   * again, the seats and the version in one statement as always. Past
   * `pendingWaitMs` it answers what it read: the map may be ahead of its version,
   * which the staleness rule allows (docs/live-map.md).
   */
  private async countedStates(db: Queryable, showId: string): Promise<SeatStates> {
    const first = await seatStates(db, showId);
    if (first.pending.length === 0 || this.pendingWaitMs <= 0) return first;
    const deadline = Date.now() + this.pendingWaitMs;
    const step = Math.max(5, Math.min(25, this.pendingWaitMs / 8));
    for (;;) {
      if (Date.now() + step > deadline) return first;
      await sleep(step);
      if (!(await stillPending(db, showId, first.pending))) return seatStates(db, showId);
    }
  }

  /** A fresh read; `previous` (the last snapshot) is kept, with what it built, when nothing changed since. */
  private async build(showId: string, previous?: Promise<SeatMapAnswer | null>): Promise<SeatMapAnswer | null> {
    const layout = await this.halls.forShow(showId);
    if (!layout) return null;
    const db = typeof this.db === 'function' ? await this.db(showId) : this.db;
    const states = await this.countedStates(db, showId);
    const tiers = states.priceTiers;
    // The version alone misses two changes that write no seat row: a hold expiring
    // before the sweeper frees it, and a price change. Both are in the tag.
    const priceTag = createHash('sha1').update(JSON.stringify(tiers)).digest('base64url').slice(0, 8);
    // And a read that answers changes not yet counted in its version (it saw new ones
    // after its wait, or the wait ran out) tags them too: the set of pending changes
    // only grows until they are published, so their seat_versions' sum tells two apart.
    const pendingTag = states.pending.length > 0 ? `.p${states.pending.reduce((a, b) => a + b, 0).toString(36)}` : '';
    const etag = `"${states.version}.${states.lazilyExpired}${pendingTag}.${priceTag}"`;
    const before = await previous?.catch(() => null);
    if (before && before.etag === etag) return before;
    const statusOf = new Map(states.seats.map((s) => [s.seat_id, s.status]));
    // With the same prices, a seat whose status did not change is the last map's
    // object: a stadium's refresh makes a few new seats, not 60,000.
    const last = before && before.etag.endsWith(`.${priceTag}"`) ? before.seats : null;
    const seats = layout.seats.map((s, i) => {
      const status = statusOf.get(s.seat_id) ?? 'available';
      const was = last?.[i];
      if (was && was.seat === s.seat_id && was.status === status && was.tier === s.tier) return was;
      // Assigned, not spread.
      const seat: MapSeat = { seat: s.seat_id, status, tier: s.tier, price: tiers[s.tier] ?? null, row: s.row, number: s.number };
      if (s.section) seat.section = s.section;
      if (s.accessible) seat.accessible = true;
      return seat;
    });
    return new SeatMapSnapshot(showId, states.version, etag, seats, layout.sectionPlan);
  }
}
