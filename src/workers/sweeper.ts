// Refreshes the seat map after holds expire. Correctness never depends on it: the
// claim treats an expired hold as free by itself (lazy expiry). Tests pause it.
import type { Database } from '../db/client.js';
import { expireLapsedHolds, expireSeats } from '../db/seatTransitions.js';
import type { Metrics } from '../metrics.js';
import { Loop, type Log } from '../loop.js';
import { TaskLease } from './taskLease.js';

export class Sweeper {
  private readonly loop: Loop;
  private readonly leases: TaskLease[] = [];
  private running = false;

  /**
   * `db`: the inventory database, or every one (each shard), swept side by side so
   * that one that does not answer holds up no other. `lease`: sweep a database only
   * while holding its `sweeper` lease (one instance at a time; ./taskLease.ts).
   */
  constructor(
    db: Database | readonly Database[], metrics: Metrics, intervalMs: number, log: Log & { debug: (o: object, m: string) => void },
    lease?: { holder: string; ms: number },
  ) {
    const dbs: readonly Database[] = Array.isArray(db) ? db : [db as Database];
    const sweep = async (d: Database) => {
      const freed = await expireSeats(d, 5000);
      await expireLapsedHolds(d);
      if (freed.length) metrics.seatsSwept.inc(freed.length);
      // Every few hundred milliseconds on a busy sale: debug, not info.
      if (freed.length) log.debug({ event: 'hold.expired', seats: freed.length, shows: new Set(freed.map((f) => f.show_id)).size }, 'expired holds gave their seats back');
    };
    const leased = dbs.map((d) => {
      if (!lease) return () => sweep(d);
      const l = new TaskLease(d, 'sweeper', lease.holder, lease.ms);
      this.leases.push(l);
      return () => l.run(() => sweep(d), this.running);
    });
    this.loop = new Loop('sweeper', async () => {
      const failed = (await Promise.allSettled(leased.map((run) => run()))).find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }, intervalMs, log);
  }

  start(): void {
    this.running = true;
    this.loop.start();
  }

  /** Stops the sweeps, waits for one in progress and gives the leases up. */
  async pause(): Promise<void> {
    this.running = false;
    await this.loop.stop();
    await Promise.all(this.leases.map((l) => l.release()));
  }

  sweepOnce(): Promise<void> {
    return this.loop.runOnce();
  }
}
