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

/** The local wall-clock `time` (HH:MM) `days` after today in `timezone`, as an instant (database clock). */
export async function localTimeIn(db: Queryable, timezone: string, days: number, time: string): Promise<Date> {
  const r = await db.query<{ at: Date }>(
    `select (((bo_now() at time zone $1)::date + $2::int) + $3::time) at time zone $1 as at`,
    [timezone, days, time],
  );
  return r.rows[0]!.at;
}
