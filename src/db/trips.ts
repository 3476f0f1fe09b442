// What each kind of work sends to the database, counted in process: round trips
// (every statement, BEGIN and COMMIT or ROLLBACK included) and commits (a statement
// outside a transaction commits on its own; read-only ones too, as PostgreSQL's
// pg_stat_database.xact_commit counts them). Counted by origin — the request path,
// the sweeper, each worker loop, the seat feed, the metrics scrape — so that one
// kind of work can be measured while the others run. Two integer additions per
// statement: cheap enough for the hot path. src/metrics.ts exposes the totals.
import type { Database, Queryable } from './client.js';

export interface Trips {
  roundTrips: number;
  commits: number;
  /** Milliseconds from asking for a statement (or transaction) to its answer: pool wait included. */
  ms: number;
}

/** The counts of one process, by origin. */
export class TripLedger {
  private readonly origins = new Map<string, Trips>();

  of(origin: string): Trips {
    let t = this.origins.get(origin);
    if (!t) this.origins.set(origin, (t = { roundTrips: 0, commits: 0, ms: 0 }));
    return t;
  }

  entries(): [string, Readonly<Trips>][] {
    return [...this.origins];
  }
}

/**
 * A view of `base` that counts what goes through it under `origin`; `as(other)` gives
 * the same pool counted under another origin, with that origin's bounds (base.as).
 */
export function metered(base: Database, ledger: TripLedger, origin: string): Database {
  const t = ledger.of(origin);
  const counted = (tx: Queryable): Queryable => ({
    query<R>(text: string, params?: readonly unknown[]) {
      t.roundTrips++;
      return tx.query<R>(text, params);
    },
    script(sql: string) {
      t.roundTrips++;
      return tx.script(sql);
    },
  });
  // A statement on its own: one round trip, one commit, its time (pool wait included).
  const alone = (q: Queryable): Queryable => ({
    async query<R>(text: string, params?: readonly unknown[]) {
      t.roundTrips++;
      const t0 = performance.now();
      try {
        const r = await q.query<R>(text, params);
        t.commits++;
        return r;
      } finally {
        t.ms += performance.now() - t0;
      }
    },
    async script(sql: string) {
      t.roundTrips++;
      await q.script(sql);
      t.commits++;
    },
  });
  return {
    kind: base.kind,
    ...alone(base),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      t.roundTrips += 2; // BEGIN (with its settings, one round trip) and COMMIT or ROLLBACK
      const t0 = performance.now();
      try {
        const r = await base.transaction((tx) => fn(counted(tx)));
        t.commits++;
        return r;
      } finally {
        t.ms += performance.now() - t0;
      }
    },
    poolStats: () => base.poolStats(),
    close: () => base.close(),
    as: (other: string) => metered(base.as(other), ledger, other),
    aside: () => alone(base.aside()),
  };
}
