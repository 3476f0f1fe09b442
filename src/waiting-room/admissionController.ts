// The admission controller: every few seconds it sets the rate at which waiting
// rooms admit, from what the purchase path measured since its last tick — hold
// latency against its calm level, and the share of purchases refused with 503. It
// closes when the system slows and opens when it recovers, like TCP: it starts at
// a quarter of the ceiling and grows by half per calm tick until the first sign of
// distress (slow start: an opening is not met with the ceiling before anything was
// measured); then it cuts at once — by as much as the holds slowed, between 10 %
// and 40 %, or by 30 % on refusals — and climbs back by a twentieth of the ceiling per
// calm tick, never above the ceiling (the configured rate), so recovery never
// overshoots what was already known to be safe. Only ticks that measured holds
// grow the rate: an idle room learns nothing about a higher one. Connections waited for in the database pool are reported, not acted on: a
// pool that is always busy is what a sale at the database's pace looks like; only
// when the waits make holds slow is it distress, and the latency says so.

export interface Signals {
  /** Mean latency of holds answered since the last tick (ms), or null when there were none. */
  holdLatencyMs: number | null;
  holds: number;
  /** Holds and bookings refused with 503 since the last tick. */
  rejections: number;
  /** Requests waiting for a database connection, now. */
  poolWaiting: number;
  /** Bookings answered 201 since the last tick. */
  completions: number;
  /** How long the window was (ms). */
  windowMs: number;
}

export interface ControllerState {
  rate_per_minute: number;
  ceiling_per_minute: number;
  baseline_hold_latency_ms: number | null;
  hold_latency_ms: number | null;
  holds_per_second: number;
  rejections: number;
  pool_waiting: number;
  completions_per_second: number;
  decision: 'start' | 'open' | 'hold' | 'close';
  reason: string;
  ticks: number;
}

/** The cut on refusals; on slow holds the cut follows how slow (calm/now), within these bounds. */
const DECREASE = 0.7;
const DECREASE_MOST = 0.6;
const DECREASE_LEAST = 0.9;
/** Until its first sign of distress the controller starts low and grows by half per measured calm tick. */
const START_SHARE = 0.25;
const SLOW_START_GROWTH = 1.5;
/** Refusals tolerated per tick before closing: a stray 503 while the limit adapts is no distress. */
const REJECTION_SHARE = 0.05;
const INCREASE_SHARE = 0.05;
// The calm latency is allowed to creep up 1 % a tick, so a lasting new normal is learned.
const BASELINE_DRIFT = 1.01;
const SLOW_FACTOR = 2;
const SLOW_MARGIN_MS = 50;

export class AdmissionController {
  private rate: number;
  private baseline: number | null = null;
  private slowStart = true;
  private state: ControllerState;

  constructor(private readonly ceiling: number, private readonly floor: number) {
    this.rate = Math.max(floor, Math.min(ceiling, Math.ceil(ceiling * START_SHARE)));
    this.state = {
      rate_per_minute: this.rate, ceiling_per_minute: ceiling, baseline_hold_latency_ms: null, hold_latency_ms: null, holds_per_second: 0,
      rejections: 0, pool_waiting: 0, completions_per_second: 0, decision: 'start', reason: 'no measurement yet', ticks: 0,
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
    const slowAt = this.baseline === null ? null : Math.max(this.baseline * SLOW_FACTOR, this.baseline + SLOW_MARGIN_MS);
    let decision: ControllerState['decision'];
    let reason: string;
    /** On a close: the factor the rate is cut by. */
    let cut = DECREASE;
    if (s.rejections > Math.max(1, REJECTION_SHARE * (s.holds + s.rejections))) {
      [decision, reason] = ['close', `${s.rejections} purchases refused with 503`];
    } else if (latency !== null && slowAt !== null && latency > slowAt) {
      [decision, reason] = ['close', `hold latency ${latency.toFixed(1)} ms over ${slowAt.toFixed(1)} ms`];
      cut = Math.min(DECREASE_LEAST, Math.max(DECREASE_MOST, slowAt / latency));
    } else if (latency === null) {
      [decision, reason] = ['hold', 'no holds to measure'];
    } else {
      [decision, reason] = this.rate < this.ceiling ? ['open', this.slowStart ? 'calm, starting' : 'calm'] : ['hold', 'calm, at the ceiling'];
    }
    if (decision === 'close') {
      this.rate = Math.max(this.floor, Math.round(this.rate * cut));
      this.slowStart = false;
    } else if (latency !== null) {
      // Only a tick that measured holds says a higher rate is safe; an idle room keeps its rate.
      const grown = this.slowStart ? Math.ceil(this.rate * SLOW_START_GROWTH) : this.rate + Math.ceil(this.ceiling * INCREASE_SHARE);
      this.rate = Math.min(this.ceiling, Math.max(this.rate + 1, grown));
      this.baseline = this.baseline === null ? latency : Math.min(this.baseline * BASELINE_DRIFT, latency);
    }
    const perSecond = (n: number) => (s.windowMs > 0 ? (n * 1000) / s.windowMs : 0);
    this.state = {
      rate_per_minute: this.rate, ceiling_per_minute: this.ceiling, baseline_hold_latency_ms: this.baseline, hold_latency_ms: latency,
      holds_per_second: perSecond(s.holds), rejections: s.rejections, pool_waiting: s.poolWaiting,
      completions_per_second: perSecond(s.completions), decision, reason, ticks: this.state.ticks + 1,
    };
    return this.rate;
  }
}
