// Waiting for a pool connection, bounded by what the database has been doing lately.
// A busy database that answers is worth queueing for (up to `queueMs`): a burst of a
// few hundred holds on a pool of twenty waits its turn and is served. A database that
// has just left a statement or a connection unanswered is not: every wait, queued
// already or new, then gives up after `connectMs`, so the purchase path answers 503
// within its budget instead of queueing behind connections that will never answer.
import type pg from 'pg';

/** After the database last left something unanswered, waits stay short this long. */
export const SILENCE_MEMORY_MS = 5000;

/** The wait for a connection ran out; translated to 503 OVERLOADED like a connection timeout. */
export class ConnectionWaitTimeout extends Error {
  constructor(ms: number, readonly suspect: boolean) {
    super(suspect
      ? `no database connection within ${ms} ms: the database left statements unanswered lately`
      : `no database connection within ${ms} ms: every connection was busy`);
  }
}

interface Waiter {
  startedAt: number;
  bound(ms: number): void;
}

export class ConnectionWaits {
  private lastSilenceAt = -Infinity;
  private readonly waiting = new Set<Waiter>();

  constructor(private readonly connectMs: number, private readonly queueMs: number, private readonly now: () => number = () => performance.now()) {}

  /** Whether the database has left something unanswered within SILENCE_MEMORY_MS. */
  get suspect(): boolean {
    return this.now() - this.lastSilenceAt < SILENCE_MEMORY_MS;
  }

  /** The database left a statement or a connection unanswered: every wait shortens to connectMs. */
  silence(): void {
    this.lastSilenceAt = this.now();
    for (const w of this.waiting) w.bound(this.connectMs);
  }

  /**
   * A connection from the pool (of at most `max`), or ConnectionWaitTimeout; a
   * connection that comes after is handed back. Opening a new connection is bounded
   * by connectMs whatever the database did before: a silent server would keep it waiting.
   */
  acquire(pool: pg.Pool, max: number): Promise<pg.PoolClient> {
    const opening = pool.idleCount === 0 && pool.totalCount < max;
    return new Promise((resolve, reject) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        done = true;
        clearTimeout(timer);
        this.waiting.delete(waiter);
      };
      const waiter: Waiter = {
        startedAt: this.now(),
        bound: (ms) => {
          clearTimeout(timer);
          const left = waiter.startedAt + ms - this.now();
          const giveUp = () => {
            if (done) return;
            // Not the queue's fault when the connection being opened did not come: the database's.
            const suspect = this.suspect || ms === this.connectMs;
            finish();
            reject(new ConnectionWaitTimeout(ms, suspect));
          };
          if (left <= 0) giveUp();
          else timer = setTimeout(giveUp, left);
        },
      };
      this.waiting.add(waiter);
      waiter.bound(this.suspect || opening ? this.connectMs : this.queueMs);
      pool.connect().then(
        (client) => {
          if (done) return client.release();
          finish();
          resolve(client);
        },
        (err: unknown) => {
          // Opening a connection failed or timed out: the database is not answering.
          this.silence();
          if (done) return;
          finish();
          reject(err);
        },
      );
    });
  }
}
