// Refreshes the seat map after holds expire. Correctness never depends on it: the
// claim treats an expired hold as free by itself (lazy expiry). Tests pause it.
import type { Database } from '../db/client.js';
import { expireLapsedHolds, expireSeats } from '../db/seatTransitions.js';
import type { Metrics } from '../metrics.js';
import { Loop, type Log } from '../loop.js';

export class Sweeper {
  private readonly loop: Loop;

  constructor(db: Database, metrics: Metrics, intervalMs: number, log: Log & { debug: (o: object, m: string) => void }) {
    this.loop = new Loop('sweeper', async () => {
      const freed = await expireSeats(db, 5000);
      await expireLapsedHolds(db);
      if (freed.length) metrics.seatsSwept.inc(freed.length);
      // Every few hundred milliseconds on a busy sale: debug, not info.
      if (freed.length) log.debug({ event: 'hold.expired', seats: freed.length, shows: new Set(freed.map((f) => f.show_id)).size }, 'expired holds gave their seats back');
    }, intervalMs, log);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the sweeps and waits for one in progress. */
  pause(): Promise<void> {
    return this.loop.stop();
  }

  sweepOnce(): Promise<void> {
    return this.loop.runOnce();
  }
}
