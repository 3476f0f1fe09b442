// One instance at a time runs a background task on one database (each shard): a
// pass first takes the task's lease there (src/db/workerLeases.ts), one conditional
// upsert, and is skipped when another instance holds it. The lease is renewed every
// third of its time while the pass runs; a running worker keeps it between passes
// (a pass more than a third of the lease time after the last renewal renews it), and
// gives it up when it stops. A pass driven by hand
// (runOnce, with the loops stopped) gives it up at once. A holder that dies stops
// renewing, and the lease runs out: another instance takes the task over within
// the lease time. Correctness never rests on it: the rows' own leases (outbox
// lease_until, `skip locked`) still keep two passes apart.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Database } from '../db/client.js';
import { releaseLease, takeLease } from '../db/workerLeases.js';

/** This instance's name in the leases: host, process and a random part (two instances in one process differ). */
export function leaseHolder(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export class TaskLease {
  private held = false;
  /** When the lease was last taken or renewed (performance.now()). */
  private takenAt = 0;
  private renewing: Promise<unknown> | null = null;

  constructor(private readonly db: Database, readonly task: string, private readonly holder: string, private readonly ms: number) {}

  /**
   * Runs `pass` while holding the lease; false (and no pass) when another instance
   * holds it. `keep`: whether to keep the lease after the pass (the loops run).
   */
  async run(pass: () => Promise<unknown>, keep: boolean): Promise<boolean> {
    // A lease taken less than a third of its time ago is still ours: no statement (the
    // loops pass every few hundred ms; a write per pass per task per shard was most of
    // what the leases cost).
    if (!this.held || performance.now() - this.takenAt >= this.ms / 3) {
      this.held = await this.take();
      if (!this.held) return false;
    }
    const renew = setInterval(() => {
      this.renewing ??= this.take().catch(() => false).finally(() => { this.renewing = null; });
    }, Math.max(50, Math.floor(this.ms / 3)));
    renew.unref();
    try {
      await pass();
    } finally {
      clearInterval(renew);
      // A renewal still under way would take the lease again after a release.
      await this.renewing;
      if (!keep) await this.release();
    }
    return true;
  }

  private async take(): Promise<boolean> {
    const at = performance.now();
    const held = await takeLease(this.db, this.task, this.holder, this.ms);
    if (held) this.takenAt = at;
    return held;
  }

  /** Gives the lease up (best effort: one that cannot be released runs out). */
  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.renewing;
    await releaseLease(this.db, this.task, this.holder).catch(() => {});
  }
}
