// Prometheus metrics of one instance (prom-client).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from './db/client.js';

export class Metrics {
  readonly registry = new Registry();
  readonly holdAttempts = new Counter({
    name: 'boxoffice_hold_attempts_total',
    help: 'Hold requests that reached the claim, by result',
    labelNames: ['result'] as const,
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
  readonly seatMapReads = new Counter({
    name: 'boxoffice_seat_map_reads_total',
    help: 'Seat map answers, by source (cache, database, not_modified)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  readonly paymentOutcomes = new Counter({
    name: 'boxoffice_payment_outcomes_total',
    help: 'Payment answers applied to bookings, by outcome (succeeded, failed, unknown)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly refundsSent = new Counter({
    name: 'boxoffice_refunds_sent_total',
    help: 'Refunds the provider accepted, by reason (cancellation, seats_lost)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor(db: Database) {
    collectDefaultMetrics({ register: this.registry, prefix: 'boxoffice_' });
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
    new Gauge({
      name: 'boxoffice_bookings',
      help: 'Bookings by status',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        const r = await db.query<{ status: string; n: number }>('select status, count(*) as n from bookings group by status');
        this.reset();
        for (const row of r.rows) this.set({ status: row.status }, row.n);
      },
    });
    new Gauge({
      name: 'boxoffice_reconciliation_backlog',
      help: 'Payment attempts whose outcome is not known yet',
      registers: [this.registry],
      async collect() {
        const r = await db.query<{ n: number }>(`select count(*) as n from payment_attempts where status in ('created', 'unknown')`);
        this.set(r.rows[0]!.n);
      },
    });
    new Gauge({
      name: 'boxoffice_reconciliation_lag_seconds',
      help: 'Age of the oldest payment attempt whose outcome is not known yet',
      registers: [this.registry],
      async collect() {
        const r = await db.query<{ s: number | null }>(
          `select extract(epoch from now() - min(created_at))::float8 as s from payment_attempts where status in ('created', 'unknown')`);
        this.set(r.rows[0]!.s ?? 0);
      },
    });
    new Gauge({
      name: 'boxoffice_refunds',
      help: 'Refunds by reason and status (seats_lost: money taken for seats the booking could not get)',
      labelNames: ['reason', 'status'] as const,
      registers: [this.registry],
      async collect() {
        const r = await db.query<{ reason: string; status: string; n: number }>('select reason, status, count(*) as n from refunds group by 1, 2');
        this.reset();
        for (const row of r.rows) this.set({ reason: row.reason, status: row.status }, row.n);
      },
    });
    new Gauge({
      name: 'boxoffice_double_sold_seats',
      help: 'Seats sold more than once (must be 0)',
      registers: [this.registry],
      async collect() {
        const r = await db.query<{ n: number }>(
          `select count(*) as n from (select 1 from booking_seats where sold group by show_id, seat_id having count(*) > 1) d`);
        this.set(r.rows[0]!.n);
      },
    });
  }
}
