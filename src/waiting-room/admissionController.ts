// The admission controller: every few seconds it sets the rate at which waiting
// rooms admit, from what the purchase path measured since its last tick — hold
// latency against a set point, and the share of purchases refused with 503. The
// set point is calm (the fastest single hold seen: one that met no queue) plus the
// time a hold may spend queued. It steers to it rather than to the edge of
// distress: the rate moves in proportion to how far the holds are from it
// (slower than the set point: down by half the relative distance, at most 40 % a
// tick; faster: up by all of it, at most 30 % a tick), so it settles where the
// seat database keeps holds at the set point instead of swinging between "calm"
// and "too slow", and climbs back from a cut within a few ticks. It starts at
// a quarter of the ceiling. More than 5 % of a tick's purchases refused with 503 cuts it by
// 30 %. A cut is given a tick to act before another one: buyers admitted before it
// still reach the purchase path for a while, so the next window is slow whatever
// the rate now is, and cutting again for it (and again) would take the room to a
// tenth of its rate in three ticks; only holds slower than at the cut cut again.
// Only ticks that measured holds raise the rate: an idle room learns nothing
// about a higher one; it never passes the ceiling (the configured rate), so
// recovery never overshoots what was configured as safe. A busy pool alone is no
// distress: a pool that is always busy is what a sale at the database's pace looks
// like, and when its waits make holds slow the latency says so. But a saturated
// pool does say what the database sustains (the purchases it completed), and the
// rate rises no further than a little over that: the latency would say "too many"
// only a tick or two after the buyers admitted reach the purchase path. A pool with
// room says how far the rate may go at once: the purchases it completed over the
// share of the window it was busy, nine tenths of that, where the law's 30 % a tick
// would take several ticks to get there (after a cut in the crowded first seconds).

export interface Signals {
  /** Mean latency of holds answered since the last tick (ms), or null when there were none. */
  holdLatencyMs: number | null;
  /** The fastest of those holds that claimed seats (ms): one that met no queue on its way; null when none did. */
  fastestHoldMs: number | null;
  holds: number;
  /** Holds and bookings refused with 503 since the last tick. */
  rejections: number;
  /** Requests waiting for a database connection, now. */
  poolWaiting: number;
  /** The share of the window the database pool's connections were in use (0–1), or null when not measured. */
  poolUtilization: number | null;
  /** Bookings answered 201 since the last tick. */
  completions: number;
  /** How long the window was (ms). */
  windowMs: number;
}

export interface ControllerState {
  rate_per_minute: number;
  ceiling_per_minute: number;
  baseline_hold_latency_ms: number | null;
  /** What the hold latency is steered to: calm plus the time a hold may spend queued (null until calm is measured). */
  set_point_ms: number | null;
  hold_latency_ms: number | null;
  holds_per_second: number;
  rejections: number;
  pool_waiting: number;
  pool_utilization: number | null;
  completions_per_second: number;
  decision: 'start' | 'open' | 'hold' | 'close';
  reason: string;
  ticks: number;
}

/** The cut on refusals. */
const DECREASE = 0.7;
/**
 * The set point's law: the rate follows the latency's distance from the set point,
 * relative to it — a cut by half the distance (at most 40 % a tick), a rise by all
 * of it (at most 30 % a tick). Rising faster than it cuts is safe here: a rise is
 * bounded by the ceiling, and the next tick measures what it did. Slow recovery is
 * what costs a sale its goodput: a room that climbed back by a twentieth of the
 * ceiling a tick spent most of an on-sale below what the database could take.
 */
const GAIN_DOWN = 0.5;
const GAIN_UP = 1;
const DECREASE_MOST = 0.6;
const INCREASE_MOST = 1.3;
/**
 * The rate before anything was measured: a quarter of the ceiling. An opening is met
 * by an instance that has not run at that pace yet, while the crowd's joins and first
 * polls take most of its CPU. Before the start's warm-up (src/app/warmup.ts) half the
 * ceiling shed purchases in bench:overload's first seconds and the room started at a
 * quarter (bench/results/2026-12-03-overload-first-tick.md); with the warm-up a quarter
 * left the pool half idle for ten seconds, and half filled it
 * (bench/results/2026-12-05-overload-webhooks.md). Since the rise to the pool's
 * headroom (below) a quarter climbs at the first tick that measures room, and half left
 * requests unanswered for 3 s in four runs of seven, for the seconds in which the first
 * admitted buyers hold and book while the crowd still joins; a quarter in none of ten
 * (bench/results/2026-12-05-overload-pool-turn.md).
 */
const START_SHARE = 0.25;
/** Refusals tolerated per tick before closing: a stray 503 while the limit adapts is no distress. */
const REJECTION_SHARE = 0.05;
// Calm is the fastest single hold seen: one that met no queue on its way (as LEDBAT takes
// the lowest delay seen as the base). It may creep up 0.5 % a tick, so a lasting new
// normal is learned.
const BASELINE_DRIFT = 1.005;
/** The pool's busy share from which it counts as saturated, and how far over its completions a saturated room may still rise. */
const SATURATED = 0.95;
const SUSTAINED_MARGIN = 1.2;
/** A cut at a saturated pool goes no lower than this share of the purchases it completed. */
const DRAIN = 0.8;
/**
 * A rise while the pool has room goes at once to this share of what its busy share says
 * it could complete (completions / busy share), when the window completed at least
 * HEADROOM_MIN_COMPLETIONS purchases (fewer say too little). bench:overload's crowd cut
 * the rate in its first seconds and the law took 8 s to climb back with the pool 59 %
 * busy (bench/results/2026-12-05-overload-headroom.md).
 */
const HEADROOM_SHARE = 0.9;
const HEADROOM_MIN_COMPLETIONS = 20;
/** The set point: the holds' mean this much above calm, the time a hold may spend queued. */
const QUEUE_DELAY_TARGET_MS = 120;

export class AdmissionController {
  private rate: number;
  private baseline: number | null = null;
  /** The previous tick cut the rate: the mean hold latency of its window (Infinity: it cut on refusals). */
  private lastCut: number | null = null;
  private state: ControllerState;

  /** `startPerMinute`: the rate before anything was measured (a quarter of the ceiling, see START_SHARE). */
  constructor(private readonly ceiling: number, private readonly floor: number, startPerMinute = Math.ceil(ceiling * START_SHARE)) {
    this.rate = Math.max(floor, Math.min(ceiling, startPerMinute));
    this.state = {
      rate_per_minute: this.rate, ceiling_per_minute: ceiling, baseline_hold_latency_ms: null, set_point_ms: null, hold_latency_ms: null, holds_per_second: 0,
      rejections: 0, pool_waiting: 0, pool_utilization: null, completions_per_second: 0, decision: 'start', reason: 'no measurement yet', ticks: 0,
    };
  }

  ratePerMinute(): number {
    return this.rate;
  }

  view(): ControllerState {
    return this.state;
  }

  /** One controller tick: the signals since the last one in, the new rate out. */
  tick(s: Signals): number {
    const latency = s.holdLatencyMs;
    const before = this.rate;
    const fastest = s.fastestHoldMs ?? latency;
    if (fastest !== null) this.baseline = this.baseline === null ? fastest : Math.min(this.baseline * BASELINE_DRIFT, fastest);
    const setPoint = this.baseline === null ? null : this.baseline + QUEUE_DELAY_TARGET_MS;
    const sustained = saturatedCompletions(s);
    const headroom = poolHeadroom(s);
    let reason: string;
    if (s.rejections > Math.max(1, REJECTION_SHARE * (s.holds + s.rejections))) {
      this.rate = Math.max(this.cutFloor(sustained), Math.round(this.rate * DECREASE));
      reason = `${s.rejections} purchases refused with 503`;
    } else if (latency === null || setPoint === null) {
      reason = 'no holds to measure';
    } else {
      // Proportional to the distance from the set point, relative to it.
      const error = (setPoint - latency) / setPoint;
      const factor = error >= 0 ? Math.min(INCREASE_MOST, 1 + GAIN_UP * error) : Math.max(DECREASE_MOST, 1 + GAIN_DOWN * error);
      reason = `hold latency ${latency.toFixed(1)} ms, set point ${setPoint.toFixed(1)} ms`;
      if (factor > 1) {
        const cap = sustained === null ? null : Math.ceil(SUSTAINED_MARGIN * sustained);
        const to = Math.min(Math.max(this.rate * factor, headroom ?? 0), cap ?? Infinity);
        if (to > this.rate) this.rate = this.grow(to);
        if (cap !== null && cap < before * factor) reason = `${reason}; the pool is saturated at ${Math.round(sustained!)} purchases/min`;
        if (headroom !== null && headroom > before * factor) reason = `${reason}; the pool, ${Math.round(100 * s.poolUtilization!)} % busy, has room for ${Math.round(headroom)} purchases/min`;
      } else {
        this.rate = Math.max(this.cutFloor(sustained), Math.round(this.rate * factor));
      }
    }
    if (this.rate < before && this.lastCut !== null && !(latency !== null && latency > this.lastCut)) {
      this.rate = before;
      reason = `${reason}: the last cut has not reached the purchase path yet`;
    }
    this.lastCut = this.rate < before ? (latency ?? Infinity) : null;
    const decision: ControllerState['decision'] = this.rate > before ? 'open' : this.rate < before ? 'close' : 'hold';
    if (decision === 'hold' && this.rate >= this.ceiling && latency !== null && (setPoint === null || latency <= setPoint)) reason = 'calm, at the ceiling';
    const perSecond = (n: number) => (s.windowMs > 0 ? (n * 1000) / s.windowMs : 0);
    this.state = {
      rate_per_minute: this.rate, ceiling_per_minute: this.ceiling, baseline_hold_latency_ms: this.baseline, set_point_ms: setPoint, hold_latency_ms: latency,
      holds_per_second: perSecond(s.holds), rejections: s.rejections, pool_waiting: s.poolWaiting, pool_utilization: s.poolUtilization,
      completions_per_second: perSecond(s.completions), decision, reason, ticks: this.state.ticks + 1,
    };
    return this.rate;
  }

  /**
   * How far a cut may go: while every connection of the pool is busy, the purchases
   * completed are what the seat database sustains, and a room admitting under
   * DRAIN of that empties the queue in front of it as surely as one admitting
   * under a third of it, but without idling the database once it is empty (a cut to
   * 4,936 a minute against 8,871 completed left bench:overload's pool a quarter idle
   * a few seconds later). Never above the rate before the cut, nor below the floor.
   */
  private cutFloor(sustained: number | null): number {
    return sustained === null ? this.floor : Math.min(this.rate, Math.max(this.floor, Math.floor(DRAIN * sustained)));
  }

  /** A higher rate (at least one more a minute), never above the ceiling. */
  private grow(to: number): number {
    return Math.min(this.ceiling, Math.max(this.rate + 1, Math.ceil(to)));
  }
}

/**
 * While every connection of the pool is busy, the purchases completed are what the
 * seat database sustains: admitting more only lengthens the queue in front of it, and
 * the holds' latency says so only after the admitted buyers reach it (a tick or two
 * late). So a saturated pool caps a rise at a little over that rate (SUSTAINED_MARGIN),
 * and a cut goes no lower than DRAIN of it (cutFloor); neither applies when the pool
 * had room. The purchases completed a minute in the window while the pool was
 * saturated; null otherwise (or nothing completed).
 */
function saturatedCompletions(s: Signals): number | null {
  if (s.poolUtilization === null || s.poolUtilization < SATURATED || s.completions === 0 || s.windowMs <= 0) return null;
  return (s.completions * 60_000) / s.windowMs;
}

/**
 * While the pool had room (busy under SATURATED of the window), the purchases a minute
 * it would complete busy all the window, at the same cost a purchase, times
 * HEADROOM_SHARE; null when saturated, unmeasured, or too few completed to say.
 */
function poolHeadroom(s: Signals): number | null {
  const u = s.poolUtilization;
  if (u === null || u >= SATURATED || u <= 0 || s.completions < HEADROOM_MIN_COMPLETIONS || s.windowMs <= 0) return null;
  return (HEADROOM_SHARE * s.completions * 60_000) / s.windowMs / u;
}
