// What this instance knows is taken on each show without asking the database: the
// seats of the holds it made, until shortly before they can lapse, and of the
// bookings it confirmed. Under load — more holds in flight than the pool has
// connections, so a claim would wait for one — a hold asking for a seat known taken
// is refused at once, as the claim would refuse it, instead of queueing for the pool
// to hear the same answer: in a cinema's on-sale nearly every hold after the first
// seconds asks for seats already taken.
//
// Only ever "taken": knowing less than the database costs a round trip, never a
// sale, and nothing here can make a seat holdable. A seat is forgotten when it may
// have become free: at its hold's lapse (less a margin), when this instance
// releases it or cancels its booking (before the answer is sent, so a buyer's next
// request sees their own release), and when the change feed reports it available
// (a release on another instance: within the feed's interval). That interval is the
// only window where a free seat can be refused, which is why, by default, memory
// answers only under load, where the alternative is a wait and a 503.
import type { HallLayout } from './hallCatalog.js';
import type { KnownTakenMode } from '../config.js';

/** A hold is forgotten this long before it can lapse (clocks and rounding). */
export const LAPSE_MARGIN_MS = 50;
/** Shows, and seats over all shows, remembered at most; the least recently touched show is forgotten first. */
const MAX_SHOWS = 1000;
const MAX_SEATS = 500_000;
/** Seats of a confirmed booking stay taken until freed. */
const BOOKED = Infinity;
/** A show's lapsed entries are walked out at most this often. */
const PRUNE_EVERY_MS = 100;

interface ShowSeats {
  /** Seat → taken until (the database's clock as this instance estimates it, ms). */
  until: Map<string, number>;
  /** The earliest `until` among the seats, or Infinity: until then every entry holds. */
  firstLapse: number;
  /** When lapsed entries were last pruned. */
  prunedAt: number;
}

export class KnownTaken {
  private readonly shows = new Map<string, ShowSeats>();
  /** Entries over all shows. */
  private seats = 0;

  constructor(
    private readonly mode: KnownTakenMode,
    /** Whether holds are queueing for the database now. */
    private readonly loaded: () => boolean,
    /** The database's clock, as this instance estimates it (ShowRules.dbNow): a hold lapses on that clock, even one a test moved. */
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a hold may be refused from memory at this moment. */
  get answering(): boolean {
    return this.mode === 'always' || (this.mode === 'under-load' && this.loaded());
  }

  /** A hold this instance made: its seats are taken until `untilMs` (the database's clock), less the margin. */
  held(showId: string, seats: readonly string[], untilMs: number): void {
    if (this.mode === 'off') return;
    const until = untilMs - LAPSE_MARGIN_MS;
    if (until <= this.now()) return;
    const show = this.show(showId);
    const before = show.until.size;
    // Set, not raised: a seat held anew was free in the database, whatever was known of it.
    for (const seat of seats) show.until.set(seat, until);
    show.firstLapse = Math.min(show.firstLapse, until);
    this.grew(show, before);
  }

  /** A booking this instance confirmed: its seats are taken until freed. */
  booked(showId: string, seats: readonly string[]): void {
    if (this.mode === 'off') return;
    const show = this.show(showId);
    const before = show.until.size;
    for (const seat of seats) show.until.set(seat, BOOKED);
    this.grew(show, before);
  }

  /** Seats that may be free now (a release, a cancellation, the feed saying so). */
  freed(showId: string, seats: Iterable<string>): void {
    const show = this.shows.get(showId);
    if (!show) return;
    const before = show.until.size;
    for (const seat of seats) show.until.delete(seat);
    this.seats -= before - show.until.size;
  }

  forgetShow(showId: string): void {
    this.seats -= this.shows.get(showId)?.until.size ?? 0;
    this.shows.delete(showId);
  }

  /** Everything forgotten (the feed lost batches: frees may have been missed). */
  clear(): void {
    this.shows.clear();
    this.seats = 0;
  }

  /** Of `seats`, those known taken now. */
  takenOf(showId: string, seats: readonly string[]): string[] {
    const show = this.shows.get(showId);
    if (!show) return [];
    const now = this.now();
    return seats.filter((s) => (show.until.get(s) ?? 0) > now);
  }

  /**
   * How many of the hall's seats are known taken now, or null when that would mean
   * a walk over every seat of the show (its earliest lapse has passed: its entries
   * are pruned at most once per PRUNE_EVERY_MS, and until then nothing is claimed).
   */
  takenCount(showId: string): number | null {
    const show = this.shows.get(showId);
    if (!show) return 0;
    const now = this.now();
    if (now < show.firstLapse) return show.until.size;
    if (now - show.prunedAt < PRUNE_EVERY_MS) return null;
    show.prunedAt = now;
    const before = show.until.size;
    let first = Infinity;
    for (const [seat, until] of show.until) {
      if (until <= now) show.until.delete(seat);
      else if (until < first) first = until;
    }
    show.firstLapse = first;
    this.seats -= before - show.until.size;
    return show.until.size;
  }

  /** Seats remembered for the show, some perhaps lapsed: an upper bound of takenCount, in constant time. */
  remembered(showId: string): number {
    return this.shows.get(showId)?.until.size ?? 0;
  }

  private show(showId: string): ShowSeats {
    let show = this.shows.get(showId);
    if (show) {
      // Touched: last to be forgotten.
      this.shows.delete(showId);
    } else {
      show = { until: new Map(), firstLapse: Infinity, prunedAt: -Infinity };
      if (this.shows.size >= MAX_SHOWS) this.forgetShow(this.shows.keys().next().value as string);
    }
    this.shows.set(showId, show);
    return show;
  }

  /** Counts what `show` gained since it had `before` entries; past MAX_SEATS the least recently touched other shows go. */
  private grew(show: ShowSeats, before: number): void {
    this.seats += show.until.size - before;
    for (const [id, other] of this.shows) {
      if (this.seats <= MAX_SEATS || other === show) break;
      this.forgetShow(id);
    }
  }

  /** Seats remembered over all shows (tests). */
  get size(): number {
    return this.seats;
  }
}

/** Whether best available for `count` seats (no filters) cannot be met: fewer seats than that not known taken. */
export function knownTooFew(known: KnownTaken, showId: string, layout: HallLayout, count: number): boolean {
  // Most of the time far from it, in constant time: a stadium's 60,000 entries are walked only near its sell-out.
  if (layout.seats.length - known.remembered(showId) >= count) return false;
  const taken = known.takenCount(showId);
  return taken !== null && layout.seats.length - taken < count;
}
