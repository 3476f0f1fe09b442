// Leases of background tasks, one row per task on each inventory database
// (migrations/0026_worker_leases.sql; src/workers/taskLease.ts uses them).
import type { Queryable } from './client.js';

/**
 * Takes the task's lease for `holder` until `ms` from now, or renews it: one
 * conditional upsert, which succeeds when nobody holds the task, `holder` does, or the
 * holder's lease ran out. True when `holder` holds it now.
 */
export async function takeLease(db: Queryable, task: string, holder: string, ms: number): Promise<boolean> {
  const r = await db.query(
    `insert into worker_leases (task, holder, lease_until)
     values ($1, $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000))
     on conflict (task) do update set holder = excluded.holder, lease_until = excluded.lease_until
      where worker_leases.holder = excluded.holder or worker_leases.lease_until < clock_timestamp()
     returning 1`,
    [task, holder, ms],
  );
  return r.rowCount > 0;
}

/** Gives the task's lease up, when `holder` holds it: another instance may take it at once. */
export async function releaseLease(db: Queryable, task: string, holder: string): Promise<void> {
  await db.query('delete from worker_leases where task = $1 and holder = $2', [task, holder]);
}

/** Who holds the task's lease and until when (null: nobody ever took it, or it was released). */
export async function leaseOf(db: Queryable, task: string): Promise<{ holder: string; lease_until: Date } | null> {
  const r = await db.query<{ holder: string; lease_until: Date }>('select holder, lease_until from worker_leases where task = $1', [task]);
  return r.rows[0] ?? null;
}
