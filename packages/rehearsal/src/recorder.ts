// What the rehearsal measured, as it happened: latencies per step (overall and per
// second of the sale), counters per second, and each buyer's place and outcome.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Latencies } from './latencies.js';

export const STEPS = ['queue join', 'admit', 'sections', 'map', 'hold', 'booking', 'booking status', 'release', 'browse', 'queue status', 'waitlist join', 'waitlist status', 'waitlist leave'] as const;
export type Step = (typeof STEPS)[number];

/** holdAttempts and conflicts count both kinds of hold; bestAttempts and bestConflicts (NOT_ENOUGH_SEATS) the best-available ones among them. */
export type Counter = 'holdAttempts' | 'holds' | 'conflicts' | 'bestAttempts' | 'bestConflicts' | 'shed' | 'limited' | 'timeouts' | 'bookings' | 'seatsSold' | 'admitted' | 'abandoned' | 'waitlisted' | 'offers';

/** How often the loop's lateness is sampled (monitorEventLoopDelay's resolution: its figures include it). */
const LOOP_RESOLUTION_MS = 20;

/** Extends a per-second series with zeros up to second `s`. */
function upTo(series: number[], s: number): number[] {
  while (series.length <= s) series.push(0);
  return series;
}

/** A per-second series' values over the `n` whole seconds before second `s` (seconds not yet in it count as none). */
const lastSeconds = (series: readonly number[], s: number, n: number): number[] => series.slice(Math.max(0, s - n), s);

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
    holdAttempts: [], holds: [], conflicts: [], bestAttempts: [], bestConflicts: [], shed: [], limited: [], timeouts: [], bookings: [], seatsSold: [], admitted: [], abandoned: [], waitlisted: [], offers: [],
  };
  readonly totals: Record<Counter, number> = { holdAttempts: 0, holds: 0, conflicts: 0, bestAttempts: 0, bestConflicts: 0, shed: 0, limited: 0, timeouts: 0, bookings: 0, seatsSold: 0, admitted: 0, abandoned: 0, waitlisted: 0, offers: 0 };
  readonly fates: BuyerFate[] = [];
  readonly statuses = new Map<string, number>();
  /** Seats in the buyers' active holds right now, and buyers waiting in a queue. */
  heldNow = 0;
  waitingNow = 0;
  arrived = 0;
  done = 0;
  /**
   * performance.now() at which the latest-lapsing hold a buyer walked away from (closed
   * the tab) runs out: its seats are held until then and sold only after, so the show
   * cannot sell out before it. Null when nobody let a hold lapse.
   */
  lastLapseAt: number | null = null;
  /** Set once a buyer finds no seat left on the map (or the room says sold out). */
  soldOutSeenAt: number | null = null;
  /**
   * The buyers' own event loop: per second of the sale, the longest it was late by
   * (ms). Every latency above is measured on this loop, so a stall here is time
   * the buyers' requests spent waiting on the rehearsal, not on the service.
   */
  readonly ownStallMs: number[] = [];
  private loopDelay: { histogram: IntervalHistogram; timer: NodeJS.Timeout; read: () => void } | null = null;

  /** Starts watching the buyers' loop (Node's event-loop delay histogram, read and reset each second). */
  watchOwnLoop(): void {
    const histogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    histogram.enable();
    let since = performance.now();
    // The longest delay since the last reading, charged to the second that reading's window began in.
    const read = () => {
      const s = this.second(since);
      const series = upTo(this.ownStallMs, s);
      series[s] = Math.max(series[s]!, histogram.max / 1e6 - LOOP_RESOLUTION_MS);
      histogram.reset();
      since = performance.now();
    };
    const timer = setInterval(read, 1000);
    timer.unref();
    this.loopDelay = { histogram, timer, read };
  }

  stopWatchingOwnLoop(): void {
    if (!this.loopDelay) return;
    clearInterval(this.loopDelay.timer);
    this.loopDelay.read();
    this.loopDelay.histogram.disable();
    this.loopDelay = null;
  }

  /** The longest stall of the buyers' loop in the last `n` whole seconds, ms. */
  recentStallMs(n: number): number {
    return Math.max(0, ...lastSeconds(this.ownStallMs, this.second(), n));
  }

  /** A hold walked away from, lapsing `inMs` from now. */
  lapses(inMs: number): void {
    const at = performance.now() + inMs;
    if (this.lastLapseAt === null || at > this.lastLapseAt) this.lastLapseAt = at;
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
    upTo(this.counters[c], s)[s]! += n;
    this.totals[c] += n;
  }

  /** The counter's per-second values, 0..seconds-1. */
  series(c: Counter, seconds: number): number[] {
    return Array.from({ length: seconds }, (_, i) => this.counters[c][i] ?? 0);
  }

  /** Sum of a counter over the last `n` whole seconds before now. */
  recent(c: Counter, n: number): number {
    return lastSeconds(this.counters[c], this.second(), n).reduce((a, b) => a + b, 0);
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
