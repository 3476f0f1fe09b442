// Prometheus metrics of one instance (prom-client).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from './db/client.js';
import type { TripLedger, Trips } from './db/trips.js';
import * as figures from './db/figures.js';
import type { Figure } from './db/figures.js';

export class Metrics {
  readonly registry = new Registry();
  readonly holdAttempts = new Counter({
    name: 'boxoffice_hold_attempts_total',
    help: 'Hold requests decided by the claim, or refused from seats known taken (boxoffice_holds_refused_known_taken_total), by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly holdsRefusedFromMemory = new Counter({
    name: 'boxoffice_holds_refused_known_taken_total',
    help: 'Holds refused (409) without the database: seats this instance knew were taken, while holds queued for the pool (KNOWN_TAKEN_REFUSALS)',
    registers: [this.registry],
  });
  readonly holdDuration = new Histogram({
    name: 'boxoffice_hold_duration_seconds',
    help: 'Time to decide a hold (the claim round trip and its checks)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly seatsSwept = new Counter({
    name: 'boxoffice_seats_swept_total',
    help: 'Seats whose expired hold the sweeper freed on the map',
    registers: [this.registry],
  });
  /**
   * Seat map answers not yet added to seatMapReads: the map routes count thousands
   * a second with a `++` here, and the counter takes them when it is read.
   */
  readonly seatMapReadTally = { cache: 0, database: 0, not_modified: 0 };
  readonly seatMapReads: Counter<'source'> = (() => {
    const tally = this.seatMapReadTally;
    return new Counter({
      name: 'boxoffice_seat_map_reads_total',
      help: 'Seat map answers, by source (cache, database, not_modified)',
      labelNames: ['source'] as const,
      registers: [this.registry],
      collect() {
        for (const source of ['cache', 'database', 'not_modified'] as const) {
          if (tally[source] === 0) continue;
          this.labels(source).inc(tally[source]);
          tally[source] = 0;
        }
      },
    });
  })();

  /** Map answers sent before the router (src/http/mapFastLane.ts), also counted in seatMapReads; added when read. */
  readonly seatMapFastTally = { answers: 0 };
  readonly seatMapFastAnswers: Counter = (() => {
    const tally = this.seatMapFastTally;
    return new Counter({
      name: 'boxoffice_seat_map_fast_answers_total',
      help: 'Seat map answers (map, section, section summary; 200 or 304) sent from memory before the router',
      registers: [this.registry],
      collect() {
        if (tally.answers === 0) return;
        this.inc(tally.answers);
        tally.answers = 0;
      },
    });
  })();

  readonly paymentOutcomes = new Counter({
    name: 'boxoffice_payment_outcomes_total',
    help: 'Payment answers applied to bookings, by outcome (succeeded, failed, unknown)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly refundsRefused = new Counter({
    name: 'boxoffice_refunds_refused_total',
    help: 'Refunds the provider refused for good (marked failed, for an operator), by the provider\'s error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly webhookEvents = new Counter({
    name: 'boxoffice_webhook_events_total',
    help: 'Signed webhook events received, by path: duplicate (delivered before), settled (repeats what a booking request recorded), '
      + 'settled_after_pause (arrived while the request was recording it), read_back (any other: read back from the provider where it names '
      + 'a payment or refund of ours, and applied)',
    labelNames: ['path'] as const,
    registers: [this.registry],
  });
  readonly webhookEventsIgnored = new Counter({
    name: 'boxoffice_webhook_events_ignored_total',
    help: 'Signed webhook events that the provider\'s own record contradicted (provider_missing, mismatch)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly refundsSent = new Counter({
    name: 'boxoffice_refunds_sent_total',
    help: 'Refunds the provider accepted, by reason (cancellation, seats_lost)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'boxoffice_rate_limited_total',
    help: 'Requests refused with 429 RATE_LIMITED, by the policy that refused them',
    labelNames: ['policy'] as const,
    registers: [this.registry],
  });

  readonly queueJoins = new Counter({
    name: 'boxoffice_queue_joins_total',
    help: 'Waiting-room joins answered with a place (repeats by one account included)',
    registers: [this.registry],
  });
  readonly queueAdmits = new Counter({
    name: 'boxoffice_queue_admits_total',
    help: 'Waiting-room admit requests by result (admitted, not_yet)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /**
   * `db`: the control database (its pool); `inventory`: every inventory database (each
   * shard), whose figures are summed. Unsharded, the one database is both.
   */
  constructor(db: Database, trips: TripLedger, inventory: () => readonly Database[] = () => [db]) {
    collectDefaultMetrics({ register: this.registry, prefix: 'boxoffice_' });
    {
      // Counted in process (src/db/trips.ts), read at scrape time.
      const fromLedger = (name: string, help: string, pick: (t: Trips) => number) =>
        new Counter({
          name, help, labelNames: ['origin'] as const, registers: [this.registry],
          collect() {
            this.reset();
            for (const [origin, t] of trips.entries()) this.inc({ origin }, pick(t));
          },
        });
      fromLedger('boxoffice_db_round_trips_total', 'Statements sent to the database (BEGIN and COMMIT included), by origin: request, sweeper, a worker loop (tickets, reconcile, …), seat_feed, metrics, …', (t) => t.roundTrips);
      fromLedger('boxoffice_db_commits_total', 'Transactions committed (a statement outside a transaction is one), by origin', (t) => t.commits);
      fromLedger('boxoffice_db_seconds_total', 'Time from asking for a statement or transaction to its answer (pool wait included), by origin', (t) => t.ms / 1000);
    }
    new Gauge({
      name: 'boxoffice_db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting requests)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const s = db.poolStats();
        this.set({ state: 'total' }, s.total);
        this.set({ state: 'idle' }, s.idle);
        this.set({ state: 'waiting' }, s.waiting);
      },
    });
    // Figures that must hold across all instances come from the database at scrape time.
    // While it does not answer, a figure keeps its last value and the failure is
    // counted: the scrape still gives this process's own metrics, rather than failing whole.
    const figureFailures = new Counter({
      name: 'boxoffice_db_figure_read_failures_total',
      help: 'Scrapes whose figures from the database (bookings, backlog, refunds, double sales) could not be read: those keep their last value (counted from the next scrape on)',
      labelNames: ['figure'] as const, registers: [this.registry],
    });
    const fromDb = (name: string, help: string, labelNames: string[], read: () => Promise<Figure[]>) =>
      new Gauge({
        name, help, labelNames, registers: [this.registry],
        async collect() {
          const values = await read().catch(() => null);
          if (values === null) return void figureFailures.inc({ figure: name });
          this.reset();
          for (const f of values) this.set(f.labels, f.value);
        },
      });
    /** A figure read on every inventory database, values with the same labels added (the largest, for an age). */
    const acrossShards = async (read: (d: Database) => Promise<Figure[]>, combine = (a: number, b: number) => a + b): Promise<Figure[]> => {
      const summed = new Map<string, Figure>();
      for (const figs of await Promise.all(inventory().map(read))) {
        for (const f of figs) {
          const key = JSON.stringify(f.labels);
          const had = summed.get(key);
          summed.set(key, had ? { labels: f.labels, value: combine(had.value, f.value) } : f);
        }
      }
      return [...summed.values()];
    };
    fromDb('boxoffice_bookings', 'Bookings by status', ['status'], () => acrossShards((d) => figures.bookingsByStatus(d)));
    fromDb('boxoffice_reconciliation_backlog', 'Payment attempts whose outcome is not known yet', [],
      () => acrossShards(async (d) => [{ labels: {}, value: (await figures.reconciliationBacklog(d)).open }]));
    fromDb('boxoffice_reconciliation_lag_seconds', 'Age of the oldest payment attempt whose outcome is not known yet', [],
      () => acrossShards(async (d) => [{ labels: {}, value: (await figures.reconciliationBacklog(d)).oldestSeconds }], Math.max));
    fromDb('boxoffice_refunds', 'Refunds by reason and status (seats_lost: money taken for seats the booking could not get)',
      ['reason', 'status'], () => acrossShards((d) => figures.refundsByReason(d)));
    fromDb('boxoffice_double_sold_seats', 'Seats sold more than once (must be 0)', [],
      () => acrossShards(async (d) => [{ labels: {}, value: await figures.doubleSoldSeats(d) }]));
  }
}
