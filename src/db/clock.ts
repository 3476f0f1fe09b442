import type { Queryable } from './client.js';

/** The database clock that judges every expiry and sale window. */
export async function dbNow(db: Queryable): Promise<Date> {
  const r = await db.query<{ now: Date }>('select bo_now() as now');
  return r.rows[0]!.now;
}

/** Moves the database clock; for tests and simulations only. */
export async function shiftClock(db: Queryable, seconds: number): Promise<void> {
  await db.query("update clock set offset_interval = offset_interval + make_interval(secs => $1)", [seconds]);
}
