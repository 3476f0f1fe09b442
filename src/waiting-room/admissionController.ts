// The admission controller: every few seconds it sets the rate at which waiting
// rooms admit, from what the purchase path measured since its last tick — hold
// latency, purchase-path rejections (503), connections waited for in the database
// pool, and purchases completed. It closes when the system slows and opens when it
// recovers, like TCP: halve at once on a sign of distress, then climb back by a
// tenth of the ceiling per calm tick, never above the ceiling (the configured
// rate), so recovery never overshoots what was already known to be safe.

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

const DECREASE = 0.5;
const INCREASE_SHARE = 0.1;
// The calm latency is allowed to creep up 1 % a tick, so a lasting new normal is learned.
const BASELINE_DRIFT = 1.01;
const SLOW_FACTOR = 2;
const SLOW_MARGIN_MS = 25;

export class AdmissionController {
  private rate: number;
  private baseline: number | null = null;
  private state: ControllerState;

  constructor(private readonly ceiling: number, private readonly floor: number, private readonly poolSize: number) {
    this.rate = ceiling;
    this.state = {
      rate_per_minute: ceiling, ceiling_per_minute: ceiling, baseline_hold_latency_ms: null, hold_latency_ms: null, holds_per_second: 0,
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
    if (s.rejections > 0) {
      [decision, reason] = ['close', `${s.rejections} purchases refused with 503`];
    } else if (s.poolWaiting > this.poolSize / 2) {
      [decision, reason] = ['close', `${s.poolWaiting} requests waiting for a database connection`];
    } else if (latency !== null && slowAt !== null && latency > slowAt) {
      [decision, reason] = ['close', `hold latency ${latency.toFixed(1)} ms over ${slowAt.toFixed(1)} ms`];
    } else {
      [decision, reason] = this.rate < this.ceiling ? ['open', 'calm'] : ['hold', 'calm, at the ceiling'];
    }
    if (decision === 'close') {
      this.rate = Math.max(this.floor, Math.floor(this.rate * DECREASE));
    } else {
      this.rate = Math.min(this.ceiling, this.rate + Math.max(1, Math.ceil(this.ceiling * INCREASE_SHARE)));
      if (latency !== null) this.baseline = this.baseline === null ? latency : Math.min(this.baseline * BASELINE_DRIFT, latency);
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
