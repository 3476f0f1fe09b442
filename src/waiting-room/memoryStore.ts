// The queue store in this process: for one instance (the embedded default, no
// REDIS_URL). Same semantics as the Redis store; JavaScript runs each call to the
// end before another starts, which makes every operation atomic.
import { advanceCounter, effectiveRate, type Call } from './advance.js';
import type { AdvanceInput, Entry, QueueStore, RoomState } from './store.js';
import type { ShowRule } from '../domain/shows.js';

interface Room {
  opened: boolean;
  ranked: boolean;
  tail: number;
  serving: number;
  credit: number;
  lastMs: number | null;
  /** Time the room admitted at rate 0 (see advance.ts): calls' deadlines are on the clock less this. */
  heldMs: number;
  seed: string | null;
  openedAtMs: number | null;
  paused: boolean;
  cap: number | null;
  soldOut: boolean;
  noShows: number;
  lapsedThrough: number;
  rate: number | null;
  entries: Map<string, string>;
  positions: Map<string, number>;
  preQueue: Map<string, string>;
  admittedUsers: Set<string>;
  /** Account -> its admission's expiry (seconds since the epoch), while it runs. */
  admissions: Map<string, number>;
  calls: Call[];
  present: Set<number>;
}

export const EMPTY: RoomState = Object.freeze({
  opened: false, ranked: false, tail: 0, serving: 0, preQueue: 0, seed: null, openedAtMs: null,
  paused: false, cap: null, soldOut: false, admitted: 0, noShows: 0, lapsedThrough: 0, rate: null,
});

export class MemoryQueueStore implements QueueStore {
  readonly kind = 'memory' as const;
  private readonly rooms_ = new Map<string, Room>();
  private readonly leases = new Map<string, number>();
  private readonly keptRules = new Map<string, ShowRule>();

  /** `clock`: the store's own time for admission (tests pass a fake one). */
  constructor(private readonly clock: () => number = Date.now) {}

  private room(showId: string): Room {
    let r = this.rooms_.get(showId);
    if (!r) {
      r = {
        opened: false, ranked: false, tail: 0, serving: 0, credit: 0, lastMs: null, heldMs: 0, seed: null, openedAtMs: null,
        paused: false, cap: null, soldOut: false, noShows: 0, lapsedThrough: 0, rate: null, entries: new Map(), positions: new Map(),
        preQueue: new Map(), admittedUsers: new Set(), admissions: new Map(), calls: [], present: new Set(),
      };
      this.rooms_.set(showId, r);
    }
    return r;
  }

  private openNow(r: Room, at: { opensAtMs: number; nowMs: number; seed: string }): void {
    if (r.opened || at.nowMs < at.opensAtMs) return;
    r.opened = true;
    r.tail = r.preQueue.size;
    r.seed = at.seed;
    r.openedAtMs = at.nowMs;
    r.ranked = r.preQueue.size === 0;
  }

  async join(showId: string, userId: string, entryId: string, at: { opensAtMs: number; nowMs: number; seed: string }): Promise<Entry> {
    const r = this.room(showId);
    const had = r.entries.get(userId);
    if (had !== undefined && !this.lapsed(r, userId)) return { entryId: had, position: r.positions.get(userId) ?? null };
    this.openNow(r, at);
    r.entries.set(userId, entryId);
    if (!r.opened) {
      r.preQueue.set(entryId, userId);
      return { entryId, position: null };
    }
    const position = ++r.tail;
    r.positions.set(userId, position);
    return { entryId, position };
  }

  /** The running admission's expiry (seconds since the epoch); like Redis's own expiry, on the wall clock. */
  private admission(r: Room, userId: string): number | undefined {
    const expiresAtS = r.admissions.get(userId);
    if (expiresAtS !== undefined && expiresAtS * 1000 <= Date.now()) r.admissions.delete(userId);
    return r.admissions.get(userId);
  }

  private lapsed(r: Room, userId: string): boolean {
    const position = r.positions.get(userId);
    return position !== undefined && position <= r.lapsedThrough && this.admission(r, userId) === undefined;
  }

  async entry(showId: string, userId: string): Promise<Entry | null> {
    const r = this.rooms_.get(showId);
    const entryId = r?.entries.get(userId);
    return entryId === undefined ? null : { entryId, position: r!.positions.get(userId) ?? null };
  }

  async state(showId: string): Promise<RoomState> {
    const r = this.rooms_.get(showId);
    if (!r) return { ...EMPTY };
    return {
      opened: r.opened, ranked: r.ranked, tail: r.tail, serving: r.serving, preQueue: r.preQueue.size, seed: r.seed,
      openedAtMs: r.openedAtMs, paused: r.paused, cap: r.cap, soldOut: r.soldOut, admitted: r.admittedUsers.size, noShows: r.noShows,
      lapsedThrough: r.lapsedThrough, rate: r.rate,
    };
  }

  async open(showId: string, at: { opensAtMs: number; nowMs: number; seed: string }): Promise<boolean> {
    const r = this.room(showId);
    this.openNow(r, at);
    return r.opened;
  }

  async preQueue(showId: string): Promise<Map<string, string>> {
    return new Map(this.room(showId).preQueue);
  }

  async writeOpening(showId: string, positions: readonly (readonly [string, number])[]): Promise<void> {
    const r = this.room(showId);
    for (const [userId, position] of positions) r.positions.set(userId, position);
    r.ranked = true;
  }

  async lease(showId: string, name: string, ms: number): Promise<boolean> {
    const key = `${showId}/${name}`;
    const now = Date.now();
    if ((this.leases.get(key) ?? 0) > now) return false;
    this.leases.set(key, now + ms);
    return true;
  }

  async advance(showId: string, input: AdvanceInput): Promise<void> {
    const r = this.rooms_.get(showId);
    if (!r || !r.opened || !r.ranked) return;
    const nowMs = this.clock();
    // One process, one instance: its rate is the room's.
    r.rate = input.ratePerMinute;
    // The first advance counts from one step back (see AdvanceInput.firstStepMs).
    r.lastMs ??= nowMs - (input.firstStepMs ?? 0);
    const rate = effectiveRate(input.ratePerMinute, r);
    const lapsed = (runningMs: number) => {
      const out: Call[] = [];
      while (r.calls.length && r.calls[0]!.deadlineMs <= runningMs) out.push(r.calls.shift()!);
      return out;
    };
    const presentIn = (from: number, to: number) => {
      let n = 0;
      for (let p = from; p <= to; p++) if (r.present.delete(p)) n++;
      return n;
    };
    const { counter, call, noShows, lapsedThrough } = advanceCounter({ ...r, lastMs: r.lastMs }, rate, nowMs, input.graceMs, lapsed, presentIn);
    if (lapsedThrough !== null) r.lapsedThrough = lapsedThrough;
    r.serving = counter.serving;
    r.credit = counter.credit;
    r.lastMs = counter.lastMs;
    r.heldMs = counter.heldMs;
    r.noShows += noShows;
    if (call) r.calls.push(call);
  }

  async admit(showId: string, userId: string, expiresAtS: number): Promise<{ expiresAtS: number } | 'lapsed'> {
    const r = this.room(showId);
    const running = this.admission(r, userId);
    if (running !== undefined) return { expiresAtS: running };
    if (this.lapsed(r, userId)) return 'lapsed';
    r.admissions.set(userId, expiresAtS);
    r.admittedUsers.add(userId);
    return { expiresAtS };
  }

  async present(showId: string, position: number): Promise<void> {
    this.room(showId).present.add(position);
  }

  async control(showId: string, c: { paused?: boolean; cap?: number | null }): Promise<void> {
    const r = this.room(showId);
    if (c.paused !== undefined) r.paused = c.paused;
    if (c.cap !== undefined) r.cap = c.cap;
  }

  async setSoldOut(showId: string, soldOut: boolean): Promise<void> {
    this.room(showId).soldOut = soldOut;
  }

  async keepRule(showId: string, rule: ShowRule): Promise<void> {
    this.keptRules.set(showId, { ...rule });
  }

  async keptRule(showId: string): Promise<ShowRule | null> {
    const kept = this.keptRules.get(showId);
    return kept ? { ...kept } : null;
  }

  async forget(showId: string): Promise<void> {
    this.rooms_.delete(showId);
    this.keptRules.delete(showId);
  }

  async rooms(): Promise<string[]> {
    return [...this.rooms_.keys()];
  }

  async ready(): Promise<void> {}

  healthy(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}
