// The queue store: one queue per show, shared by every instance (Redis) or kept
// in this process (no REDIS_URL). Every operation is atomic in the store, so
// positions stay unique however many instances and clients join at once.
import type { ShowRule } from '../domain/shows.js';

export interface RoomState {
  /** The pre-queue is closed: positions are given out (the sale has opened). */
  opened: boolean;
  /** The pre-queue's positions have been written (shortly after opening). */
  ranked: boolean;
  /** Positions given out so far (the pre-queue's included once opened). */
  tail: number;
  /** Positions up to this one may be admitted. */
  serving: number;
  /** Entries that joined before the opening. */
  preQueue: number;
  /** The opening's seed, published once open. */
  seed: string | null;
  openedAtMs: number | null;
  paused: boolean;
  /** Operators' cap of admissions per minute; null: no cap. */
  cap: number | null;
  soldOut: boolean;
  /** Accounts that exchanged their queue token for an admission (each counted once). */
  admitted: number;
  /** Served positions that made no hold within the grace period (their slots went to the next in line). */
  noShows: number;
  /** Positions up to this one had their grace period: one not admitted by then has lapsed. */
  lapsedThrough: number;
  /** The rate the last advance used before pause and cap: the lowest of the instances' rates; null before any. */
  rate: number | null;
}

export interface Entry {
  entryId: string;
  /** Null before the opening (pre-queue) and until the opening's order is written. */
  position: number | null;
}

export interface AdvanceInput {
  /** This instance's name: the room admits at the lowest rate among the instances ticking it. */
  instanceId: string;
  /** An instance's rate counts until it is this old (the instance stopped ticking). */
  rateTtlMs: number;
  /** The admission rule's rate before operators' pause and cap. */
  ratePerMinute: number;
  /** A served position that makes no hold within this lapses; its slot goes to the next. */
  graceMs: number;
  /**
   * What a room's first advance admits: this long at the rate (the tick), as if the
   * room had been ticked one tick before; without it the first tick only starts the
   * clock and an opening waits a whole tick for its first admission. 0 when omitted.
   */
  firstStepMs?: number;
}

export interface QueueStore {
  readonly kind: 'redis' | 'memory';
  /**
   * The account's entry; a new one (entryId) at the back if it has none, or if its
   * place lapsed (served, not admitted within the grace period, no admission running).
   * Closes the pre-queue first when the sale has opened.
   */
  join(showId: string, userId: string, entryId: string, at: { opensAtMs: number; nowMs: number; seed: string }): Promise<Entry>;
  entry(showId: string, userId: string): Promise<Entry | null>;
  state(showId: string): Promise<RoomState>;
  /** Closes the pre-queue when the sale has opened; whether the room is open now. */
  open(showId: string, at: { opensAtMs: number; nowMs: number; seed: string }): Promise<boolean>;
  /** The pre-queue as entry id -> account, once closed. */
  preQueue(showId: string): Promise<Map<string, string>>;
  /** Writes the opening's positions (idempotent) and marks the room ranked. */
  writeOpening(showId: string, positions: readonly (readonly [userId: string, position: number])[]): Promise<void>;
  /** A short lease so that one instance at a time writes the opening. */
  lease(showId: string, name: string, ms: number): Promise<boolean>;
  /**
   * Moves serving by the rate since the last advance plus the lapsed no-shows,
   * never past the tail. Time here is the store's own clock (Redis TIME), one
   * clock for every instance: instances' estimates of the database clock jitter,
   * and an integral over several jittering clocks would admit too many.
   */
  advance(showId: string, input: AdvanceInput): Promise<void>;
  /**
   * The account's admission, remembered until it expires: the one given before if
   * it still runs (never a later one); else 'lapsed' when its place's grace period
   * passed without it asking (up to `lapsedThrough`); else a new one expiring at
   * `expiresAtS` (seconds since the epoch), counted once per account.
   */
  admit(showId: string, userId: string, expiresAtS: number): Promise<{ expiresAtS: number } | 'lapsed'>;
  /** The holder of this position came to the purchase path (it is no no-show). */
  present(showId: string, position: number): Promise<void>;
  control(showId: string, c: { paused?: boolean; cap?: number | null }): Promise<void>;
  setSoldOut(showId: string, soldOut: boolean): Promise<void>;
  /**
   * Keeps the show's rules with its room, so that an instance which cannot read them
   * from the seat database (down, and this show not in its memory) still serves the
   * room's status and admissions.
   */
  keepRule(showId: string, rule: ShowRule): Promise<void>;
  /** The rules kept with the show's room; null when none were. */
  keptRule(showId: string): Promise<ShowRule | null>;
  /** Deletes the show's queue (its show is over). */
  forget(showId: string): Promise<void>;
  /** Shows with a queue. */
  rooms(): Promise<string[]>;
  /** Resolves once connected, or after a short wait (then the room answers "try again" until it connects). */
  ready(): Promise<void>;
  /** Whether the store answered its last command (false while Redis is unreachable). */
  healthy(): boolean;
  close(): Promise<void>;
}

export class StoreUnavailable extends Error {}
