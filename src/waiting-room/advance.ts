// The admission arithmetic shared by both stores (the Redis store runs the same
// steps in Lua): serving moves by the rate since the last advance, plus the served
// positions that lapsed without coming to the purchase path, never past the tail.
// A call's grace period runs on the room's running clock, which stops while the room
// admits at rate 0 (paused, capped at 0, sold out): a served buyer is then told "not
// yet" or has nothing new to come for, and must not lapse for it. On resuming, each
// call has the rest of its grace period.

export interface Call {
  from: number;
  to: number;
  /** On the running clock (time less `Counter.heldMs`). */
  deadlineMs: number;
}

export interface Counter {
  serving: number;
  tail: number;
  /** Fraction of an admission carried to the next advance. */
  credit: number;
  lastMs: number;
  /** Time spent at rate 0, counted advance by advance: the running clock is nowMs - heldMs. */
  heldMs: number;
}

/** The effective rate: 0 while paused or sold out, else the rule's rate under the operators' cap. */
export function effectiveRate(ratePerMinute: number, c: { paused: boolean; soldOut: boolean; cap: number | null }): number {
  if (c.paused || c.soldOut) return 0;
  return c.cap === null ? ratePerMinute : Math.min(ratePerMinute, c.cap);
}

/**
 * One advance. `lapsed(runningMs)` takes the calls whose deadline passed on the
 * running clock; `presentIn(from, to)` counts positions of a lapsed call that came;
 * returns the new counter, the call it opens (if any), the no-shows it counted and
 * the last position of the calls that lapsed (null if none did): calls lapse in
 * order, so every position up to it had its grace period, and one that did not
 * ask for its admission in it never will.
 */
export function advanceCounter(
  c: Counter, rate: number, nowMs: number, graceMs: number,
  lapsed: (runningMs: number) => Call[], presentIn: (from: number, to: number) => number,
): { counter: Counter; call: Call | null; noShows: number; lapsedThrough: number | null } {
  if (nowMs <= c.lastMs) return { counter: c, call: null, noShows: 0, lapsedThrough: null };
  let credit = c.credit;
  let noShows = 0;
  let lapsedThrough: number | null = null;
  let heldMs = c.heldMs;
  if (rate > 0) {
    credit += (rate * (nowMs - c.lastMs)) / 60_000;
    for (const call of lapsed(nowMs - heldMs)) {
      noShows += call.to - call.from + 1 - presentIn(call.from, call.to);
      lapsedThrough = call.to;
    }
  } else {
    // Like the credit, the whole step since the last advance counts at the rate of now.
    heldMs += nowMs - c.lastMs;
  }
  const add = Math.floor(credit);
  credit -= add;
  let serving = c.serving + add + noShows;
  // An empty queue must not bank admissions for a later burst.
  if (serving >= c.tail) {
    serving = c.tail;
    credit = 0;
  }
  const call = serving > c.serving ? { from: c.serving + 1, to: serving, deadlineMs: nowMs - heldMs + graceMs } : null;
  return { counter: { serving, tail: c.tail, credit, lastMs: nowMs, heldMs }, call, noShows, lapsedThrough };
}
