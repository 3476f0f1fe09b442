// The admission arithmetic shared by both stores (the Redis store runs the same
// steps in Lua): serving moves by the rate since the last advance, plus the served
// positions that lapsed without coming to the purchase path, never past the tail.

export interface Call {
  from: number;
  to: number;
  deadlineMs: number;
}

export interface Counter {
  serving: number;
  tail: number;
  /** Fraction of an admission carried to the next advance. */
  credit: number;
  lastMs: number;
}

/** The effective rate: 0 while paused or sold out, else the rule's rate under the operators' cap. */
export function effectiveRate(ratePerMinute: number, c: { paused: boolean; soldOut: boolean; cap: number | null }): number {
  if (c.paused || c.soldOut) return 0;
  return c.cap === null ? ratePerMinute : Math.min(ratePerMinute, c.cap);
}

/**
 * One advance. `presentIn(from, to)` counts positions of a lapsed call that came;
 * returns the new counter, the call it opens (if any) and the no-shows it counted.
 */
export function advanceCounter(
  c: Counter, rate: number, nowMs: number, graceMs: number,
  lapsed: (nowMs: number) => Call[], presentIn: (from: number, to: number) => number,
): { counter: Counter; call: Call | null; noShows: number } {
  if (nowMs <= c.lastMs) return { counter: c, call: null, noShows: 0 };
  let credit = c.credit;
  let noShows = 0;
  if (rate > 0) {
    credit += (rate * (nowMs - c.lastMs)) / 60_000;
    for (const call of lapsed(nowMs)) noShows += call.to - call.from + 1 - presentIn(call.from, call.to);
  }
  const add = Math.floor(credit);
  credit -= add;
  let serving = c.serving + add + noShows;
  // An empty queue must not bank admissions for a later burst.
  if (serving >= c.tail) {
    serving = c.tail;
    credit = 0;
  }
  const call = serving > c.serving ? { from: c.serving + 1, to: serving, deadlineMs: nowMs + graceMs } : null;
  return { counter: { serving, tail: c.tail, credit, lastMs: nowMs }, call, noShows };
}
