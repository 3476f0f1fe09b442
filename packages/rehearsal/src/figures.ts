// The report's headline figures, computed from what the run recorded.
import { percentiles, type Percentiles } from './latencies.js';
import { spearman } from './rankCorrelation.js';
import type { RunResult } from './run.js';

export interface Headline {
  totalSeats: number;
  sold: number;
  /** Seconds from the sale's start until every seat was booked; null when it did not sell out. */
  soldOutSeconds: number | null;
  /** Seconds until 95 % of the seats were booked (the tail after it is mostly lapsed holds sold again). */
  sold95Seconds: number | null;
  /**
   * Seconds until the last hold a buyer walked away from (closed the tab) lapsed: the
   * show cannot sell out before it, whatever the service does. Null when none lapsed.
   */
  lastLapseSeconds: number | null;
  /** Seats ÷ (admission ceiling per second × seats per purchase): the fastest the room could sell out; null without a waiting room. */
  admissionBoundSeconds: number | null;
  seatsPerPurchase: number;
  /** Over the selling window (until sell-out, else the whole sale). */
  holdsPerSecond: number;
  bookingsPerSecond: number;
  peakHoldsPerSecond: number;
  conflictRate: number;
  /** 409 rate of the buyers choosing seats on the map (SEAT_UNAVAILABLE ÷ their hold requests). */
  chosenConflictRate: number;
  /** 409 rate of best-available requests (NOT_ENOUGH_SEATS ÷ best-available requests), null without any. */
  bestConflictRate: number | null;
  /** The same until the last 2 % of the seats were sold or held (null when never reached or no such request). */
  bestConflictRateTo98: number | null;
  shed: number;
  timeouts: number;
  waiting: Percentiles;
  fairness: number | null;
  bought: number;
  buyers: number;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);

export function headline(r: RunResult): Headline {
  const { opts, rec, samples } = r;
  const totalSeats = opts.seats * opts.shows;
  const soldAt = samples.seats.find((s) => s.booked >= totalSeats);
  const sold = samples.seats.at(-1)?.booked ?? rec.totals.seatsSold;
  const soldOutSeconds = soldAt ? soldAt.t : null;
  const seatsPerPurchase = rec.totals.bookings > 0 ? rec.totals.seatsSold / rec.totals.bookings : (opts.seatsPerBuyer[0] + opts.seatsPerBuyer[1]) / 2;
  const ceiling = samples.room.find((s) => s.ceilingPerMinute !== null)?.ceilingPerMinute ?? opts.admitPerMinute;
  const window = Math.max(1, soldOutSeconds ?? r.saleSeconds);
  const holdsSeries = rec.series('holds', rec.seconds());
  const waits = new Float64Array(rec.fates.filter((f) => f.waitMs !== null).map((f) => f.waitMs! / 1000));
  const fates = rec.fates;
  // The second the last 2 % began: seats booked or held (sampled from the show's stats) reached 98 %.
  const at98 = samples.seats.find((s) => s.booked + s.held >= 0.98 * totalSeats);
  const to98 = at98 ? Math.max(0, Math.floor(at98.t)) : null;
  return {
    totalSeats, sold, soldOutSeconds, sold95Seconds: samples.seats.find((s) => s.booked >= 0.95 * totalSeats)?.t ?? null,
    lastLapseSeconds: rec.lastLapseAt === null ? null : (rec.lastLapseAt - rec.startedAt) / 1000,
    admissionBoundSeconds: opts.waitingRoom ? totalSeats / ((ceiling / 60) * seatsPerPurchase) : null,
    seatsPerPurchase,
    holdsPerSecond: rec.totals.holds / window,
    bookingsPerSecond: rec.totals.bookings / window,
    peakHoldsPerSecond: Math.max(0, ...holdsSeries),
    conflictRate: rec.totals.holdAttempts ? rec.totals.conflicts / rec.totals.holdAttempts : 0,
    chosenConflictRate: rate(rec.totals.conflicts - rec.totals.bestConflicts, rec.totals.holdAttempts - rec.totals.bestAttempts) ?? 0,
    bestConflictRate: rate(rec.totals.bestConflicts, rec.totals.bestAttempts),
    bestConflictRateTo98: to98 === null ? null
      : rate(sum(rec.series('bestConflicts', rec.seconds()).slice(0, to98)), sum(rec.series('bestAttempts', rec.seconds()).slice(0, to98))),
    shed: rec.totals.shed,
    timeouts: rec.totals.timeouts,
    waiting: percentiles(waits),
    fairness: opts.shows === 1 ? spearman(fates.map((f) => f.position), fates.map((f) => (f.gotSeat ? 1 : 0))) : null,
    bought: fates.filter((f) => f.gotSeat).length,
    buyers: fates.length,
  };
}
