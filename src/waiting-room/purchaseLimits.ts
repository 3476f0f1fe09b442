// The per-instance concurrency limits of the purchase path: one for holds, one for
// bookings (a booking waits for the payment provider: its latency says little
// about the seat database, so it does not steer the holds' limit), with metrics.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { LimitSettings } from './concurrencyLimit.js';
import { ConcurrencyLimit } from './concurrencyLimit.js';

export type PurchasePath = 'hold' | 'booking';

export class PurchaseLimits {
  readonly hold: ConcurrencyLimit;
  readonly booking: ConcurrencyLimit;
  readonly rejections: Counter<'path'>;

  constructor(settings: Readonly<LimitSettings>, registry: Registry) {
    this.hold = new ConcurrencyLimit(settings);
    this.booking = new ConcurrencyLimit(settings);
    this.rejections = new Counter({
      name: 'boxoffice_purchase_rejections_total',
      help: 'Holds and bookings refused with 503 OVERLOADED beyond the instance\'s concurrency limit, by path',
      labelNames: ['path'] as const,
      registers: [registry],
    });
    const paths = { hold: this.hold, booking: this.booking };
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
}
