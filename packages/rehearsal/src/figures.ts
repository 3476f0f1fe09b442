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
  /** Seats ÷ (admission ceiling per second × seats per purchase): the fastest the room could sell out; null without a waiting room. */
  admissionBoundSeconds: number | null;
  seatsPerPurchase: number;
  /** Over the selling window (until sell-out, else the whole sale). */
  holdsPerSecond: number;
  bookingsPerSecond: number;
  peakHoldsPerSecond: number;
  conflictRate: number;
  shed: number;
  timeouts: number;
  waiting: Percentiles;
  fairness: number | null;
  bought: number;
  buyers: number;
}

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
  return {
    totalSeats, sold, soldOutSeconds, sold95Seconds: samples.seats.find((s) => s.booked >= 0.95 * totalSeats)?.t ?? null,
    admissionBoundSeconds: opts.waitingRoom ? totalSeats / ((ceiling / 60) * seatsPerPurchase) : null,
    seatsPerPurchase,
    holdsPerSecond: rec.totals.holds / window,
    bookingsPerSecond: rec.totals.bookings / window,
    peakHoldsPerSecond: Math.max(0, ...holdsSeries),
    conflictRate: rec.totals.holdAttempts ? rec.totals.conflicts / rec.totals.holdAttempts : 0,
    shed: rec.totals.shed,
    timeouts: rec.totals.timeouts,
    waiting: percentiles(waits),
    fairness: opts.shows === 1 ? spearman(fates.map((f) => f.position), fates.map((f) => (f.gotSeat ? 1 : 0))) : null,
    bought: fates.filter((f) => f.gotSeat).length,
    buyers: fates.length,
  };
}
