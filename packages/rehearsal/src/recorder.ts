// What the rehearsal measured, as it happened: latencies per step (overall and per
// second of the sale), counters per second, and each buyer's place and outcome.
import { Latencies } from './latencies.js';

export const STEPS = ['queue join', 'admit', 'sections', 'map', 'hold', 'booking', 'booking status', 'release', 'browse', 'queue status'] as const;
export type Step = (typeof STEPS)[number];

/** holdAttempts and conflicts count both kinds of hold; bestAttempts and bestConflicts (NOT_ENOUGH_SEATS) the best-available ones among them. */
export type Counter = 'holdAttempts' | 'holds' | 'conflicts' | 'bestAttempts' | 'bestConflicts' | 'shed' | 'limited' | 'timeouts' | 'bookings' | 'seatsSold' | 'admitted' | 'abandoned';

const STALL_TICK_MS = 20;

export interface BuyerFate {
  /** Queue position (waiting room) or arrival rank (none): the order fairness is judged by. */
  position: number;
  gotSeat: boolean;
  /** ms from queue join to admission; null without a waiting room or when never admitted. */
  waitMs: number | null;
}

export class Recorder {
  readonly startedAt = performance.now();
  readonly overall = new Map<Step, Latencies>(STEPS.map((s) => [s, new Latencies()]));
  /** [second][step] → latencies answered in that second. */
  private readonly perSecond: Map<Step, number[]>[] = [];
  private readonly counters: Record<Counter, number[]> = {
    holdAttempts: [], holds: [], conflicts: [], bestAttempts: [], bestConflicts: [], shed: [], limited: [], timeouts: [], bookings: [], seatsSold: [], admitted: [], abandoned: [],
  };
  readonly totals: Record<Counter, number> = { holdAttempts: 0, holds: 0, conflicts: 0, bestAttempts: 0, bestConflicts: 0, shed: 0, limited: 0, timeouts: 0, bookings: 0, seatsSold: 0, admitted: 0, abandoned: 0 };
  readonly fates: BuyerFate[] = [];
  readonly statuses = new Map<string, number>();
  /** Seats in the buyers' active holds right now, and buyers waiting in a queue. */
  heldNow = 0;
  waitingNow = 0;
  arrived = 0;
  done = 0;
  /** Set once a buyer finds no seat left on the map (or the room says sold out). */
  soldOutSeenAt: number | null = null;
  /**
   * The buyers' own event loop: per second of the sale, the longest it was late by
   * (ms). Every latency above is measured on this loop, so a stall here is time
   * the buyers' requests spent waiting on the rehearsal, not on the service.
   */
  readonly ownStallMs: number[] = [];
  private stallTimer: NodeJS.Timeout | null = null;

  /** Starts watching the buyers' loop: a tick every 20 ms, its lateness recorded. */
  watchOwnLoop(): void {
    let expected = performance.now() + STALL_TICK_MS;
    this.stallTimer = setInterval(() => {
      const now = performance.now();
      const late = Math.max(0, now - expected);
      const s = this.second(now);
      while (this.ownStallMs.length <= s) this.ownStallMs.push(0);
      if (late > this.ownStallMs[s]!) this.ownStallMs[s] = late;
      expected = now + STALL_TICK_MS;
    }, STALL_TICK_MS);
    this.stallTimer.unref();
  }

  stopWatchingOwnLoop(): void {
    if (this.stallTimer) clearInterval(this.stallTimer);
    this.stallTimer = null;
  }

  /** The longest stall of the buyers' loop in the last `n` whole seconds, ms. */
  recentStallMs(n: number): number {
    const s = this.second();
    let max = 0;
    for (let i = Math.max(0, s - n); i < s; i++) max = Math.max(max, this.ownStallMs[i] ?? 0);
    return max;
  }

  second(at = performance.now()): number {
    return Math.max(0, Math.floor((at - this.startedAt) / 1000));
  }

  latency(step: Step, ms: number, status: string): void {
    this.overall.get(step)!.add(ms);
    const s = this.second();
    const bucket = (this.perSecond[s] ??= new Map());
    let list = bucket.get(step);
    if (!list) bucket.set(step, (list = []));
    list.push(ms);
    const key = `${step} ${status}`;
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }

  count(c: Counter, n = 1): void {
    const s = this.second();
    const series = this.counters[c];
    while (series.length <= s) series.push(0);
    series[s]! += n;
    this.totals[c] += n;
  }

  /** The counter's per-second values, 0..seconds-1. */
  series(c: Counter, seconds: number): number[] {
    return Array.from({ length: seconds }, (_, i) => this.counters[c][i] ?? 0);
  }

  /** Sum of a counter over the last `n` whole seconds before now. */
  recent(c: Counter, n: number): number {
    const s = this.second();
    let sum = 0;
    for (let i = Math.max(0, s - n); i < s; i++) sum += this.counters[c][i] ?? 0;
    return sum;
  }

  /** The latencies of some steps answered in seconds [from, to). */
  window(steps: readonly Step[], from: number, to: number): Latencies {
    const out = new Latencies();
    for (let i = Math.max(0, from); i < to; i++) {
      const bucket = this.perSecond[i];
      if (!bucket) continue;
      for (const step of steps) for (const ms of bucket.get(step) ?? []) out.add(ms);
    }
    return out;
  }

  seconds(): number {
    return this.second() + 1;
  }
}
