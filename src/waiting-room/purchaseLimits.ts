// The per-instance concurrency limits of the purchase path: one for holds, one for
// bookings (a booking waits for the payment provider: its latency says little
// about the seat database, so it does not steer the holds' limit), with metrics.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LimitSettings } from './concurrencyLimit.js';
import type { Signals } from './admissionController.js';
import { ConcurrencyLimit } from './concurrencyLimit.js';

export type PurchasePath = 'hold' | 'booking';

export class PurchaseLimits {
  readonly hold: ConcurrencyLimit;
  readonly booking: ConcurrencyLimit;
  readonly rejections: Counter<'path'>;
  /** How long a refusal took inside the service: from the parsed request to the 503 written. */
  readonly shedSeconds: Histogram;
  // What the admission controller reads and resets at each of its ticks.
  private window = { startedMs: Date.now(), holdMs: 0, fastestHoldMs: Infinity, holds: 0, rejections: 0, completions: 0 };
  private busyMsBefore = 0;

  constructor(settings: Readonly<Omit<LimitSettings, 'queue'> & { bookingMin: number; holdQueue?: LimitSettings['queue'] }>, registry: Registry) {
    // Only holds queue for the seat database's pool; a booking's time is mostly the payment provider's.
    this.hold = new ConcurrencyLimit({ initial: settings.initial, min: settings.min, max: settings.max, ...(settings.holdQueue ? { queue: settings.holdQueue } : {}) });
    // bookingMin lies between min and max already (src/config.ts).
    this.booking = new ConcurrencyLimit({ min: settings.bookingMin, max: settings.max, initial: Math.max(settings.bookingMin, settings.initial) });
    this.rejections = new Counter({
      name: 'boxoffice_purchase_rejections_total',
      help: 'Holds and bookings refused with 503 OVERLOADED beyond the instance\'s concurrency limit, by path',
      labelNames: ['path'] as const,
      registers: [registry],
    });
    this.shedSeconds = new Histogram({
      name: 'boxoffice_purchase_shed_seconds',
      help: 'Time a 503 OVERLOADED of the purchase path took inside the service, from the parsed request to the answer written (what a client sees beyond it is waiting for this process to read the request)',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
      registers: [registry],
    });
    const paths = { hold: this.hold, booking: this.booking };
    this.rejections.inc({ path: 'hold' }, 0);
    this.rejections.inc({ path: 'booking' }, 0);
    new Gauge({
      name: 'boxoffice_purchase_limit',
      help: 'The adaptive concurrency limit of the purchase path on this instance, by path',
      labelNames: ['path'] as const,
      registers: [registry],
      collect() {
        for (const [path, l] of Object.entries(paths)) this.set({ path }, l.limit);
      },
    });
    new Gauge({
      name: 'boxoffice_purchase_in_flight',
      help: 'Holds and bookings in flight on this instance, by path',
      labelNames: ['path'] as const,
      registers: [registry],
      collect() {
        for (const [path, l] of Object.entries(paths)) this.set({ path }, l.inFlight);
      },
    });
  }

  /** A purchase answered (or refused: status 503 without a slot). */
  observe(path: PurchasePath, ms: number, status: number, shed = false): void {
    if (shed) {
      this.window.rejections++;
      this.rejections.inc({ path });
      return;
    }
    if (path === 'hold' && status < 500) {
      this.window.holdMs += ms;
      // Only a hold that claimed seats surely went to the database (a refusal may be answered before it).
      if (status === 201 && ms < this.window.fastestHoldMs) this.window.fastestHoldMs = ms;
      this.window.holds++;
    }
    if (path === 'booking' && status === 201) this.window.completions++;
  }

  /** The signals since the last call, and a new window; `pool`: the database pool's figures now (PoolStats). */
  takeSignals(pool: { waiting: number; size: number; busyMs: number }): Signals {
    const w = this.window;
    const now = Date.now();
    this.window = { startedMs: now, holdMs: 0, fastestHoldMs: Infinity, holds: 0, rejections: 0, completions: 0 };
    const windowMs = now - w.startedMs;
    const busyMs = pool.busyMs - this.busyMsBefore;
    this.busyMsBefore = pool.busyMs;
    return {
      holdLatencyMs: w.holds ? w.holdMs / w.holds : null, fastestHoldMs: Number.isFinite(w.fastestHoldMs) ? w.fastestHoldMs : null, holds: w.holds, rejections: w.rejections,
      poolWaiting: pool.waiting, poolUtilization: windowMs > 0 && pool.size > 0 ? Math.min(1, busyMs / (pool.size * windowMs)) : null,
      completions: w.completions, windowMs,
    };
  }
}
