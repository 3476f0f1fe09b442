// Refreshes the seat map after holds expire. Correctness never depends on it: the
// claim treats an expired hold as free by itself (lazy expiry). Tests pause it.
import type { Database } from '../db/client.js';
import { sweepExpiredSeats } from '../db/seats.js';
import type { Metrics } from '../metrics.js';

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
    private readonly intervalMs: number,
    private readonly log: { warn: (obj: object, msg: string) => void },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweepOnce(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async pause(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass: frees up to a batch of expired seats. Overlapping calls share one pass. */
  sweepOnce(): Promise<void> {
    this.running ??= (async () => {
      try {
        const freed = await sweepExpiredSeats(this.db, 5000);
        if (freed.length) this.metrics.seatsSwept.inc(freed.length);
      } catch (err) {
        this.log.warn({ err }, 'sweep failed; next pass retries');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }
}
