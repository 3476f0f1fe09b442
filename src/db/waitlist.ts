// The waiting list's entries (migrations/0021_waiting_list.sql). An offer's hold and
// seats are written by src/db/seatTransitions.ts (offerSeats); here only the line.
import type { Queryable } from './client.js';

/** The list as a buyer sees it: an offered entry's state is its hold's. */
export type EntryStatus = 'waiting' | 'offered' | 'lapsed' | 'booked' | 'left';

export interface EntryRow {
  position: number;
  count: number;
  status: EntryStatus;
  hold_id: string | null;
  expires_at: Date | null;
}

/**
 * Serializes one show's list: joins (the next position) and offer passes (who is
 * first) queue on it. Held to the end of the transaction; bounded by its lock_timeout.
 */
export async function lockList(tx: Queryable, showId: string): Promise<void> {
  await tx.query(`select pg_advisory_xact_lock(hashtextextended('boxoffice.waitlist/' || $1, 0))`, [showId]);
}

/** The caller's entry, its offer judged by the database clock. */
export async function findEntry(db: Queryable, showId: string, userId: string): Promise<EntryRow | null> {
  const r = await db.query<EntryRow>(
    `select w.position, w.count, w.hold_id, h.expires_at,
            case when w.status <> 'offered' then w.status
                 when h.status = 'confirmed' then 'booked'
                 when h.status = 'paying' or (h.status = 'active' and h.expires_at > bo_now()) then 'offered'
                 else 'lapsed' end as status
       from waitlist_entries w left join holds h on h.id = w.hold_id
      where w.show_id = $1 and w.user_id = $2`,
    [showId, userId],
  );
  return r.rows[0] ?? null;
}

/** A new place at the back of the line (a first join, or a join after the last one ended). */
export async function joinAtBack(tx: Queryable, showId: string, userId: string, count: number): Promise<number> {
  const r = await tx.query<{ position: number }>(
    `insert into waitlist_entries (show_id, user_id, position, count)
     values ($1, $2, (select coalesce(max(position), 0) + 1 from waitlist_entries where show_id = $1), $3)
     on conflict (show_id, user_id) do update
       set position = excluded.position, count = excluded.count, status = 'waiting', hold_id = null, joined_at = now()
     returning position`,
    [showId, userId, count],
  );
  return r.rows[0]!.position;
}

/** A waiting entry asks for another number of seats; keeps its place. */
export async function changeCount(tx: Queryable, showId: string, userId: string, count: number): Promise<void> {
  await tx.query(`update waitlist_entries set count = $3 where show_id = $1 and user_id = $2 and status = 'waiting'`, [showId, userId, count]);
}

/**
 * Leaves the line while only waiting (no offer open): one row, without the list's lock.
 * An offer pass that picked the entry meanwhile takes it only while it is still waiting
 * (offerSeats locks the row and checks), so it finds it gone, or has offered it first and
 * this changes nothing. False when no waiting entry was left.
 */
export async function leaveWhileWaiting(db: Queryable, showId: string, userId: string): Promise<boolean> {
  const r = await db.query(`update waitlist_entries set status = 'left' where show_id = $1 and user_id = $2 and status = 'waiting'`, [showId, userId]);
  return r.rowCount > 0;
}

/** Leaves the line; the entry's offer hold, if any, for the caller to release in the same transaction. */
export async function leave(tx: Queryable, showId: string, userId: string): Promise<{ left: boolean; holdId: string | null }> {
  const r = await tx.query<{ hold_id: string | null }>(
    `with before as (select hold_id from waitlist_entries where show_id = $1 and user_id = $2 for update)
     update waitlist_entries w set status = 'left', hold_id = null
       from before where w.show_id = $1 and w.user_id = $2 and w.status <> 'left'
     returning before.hold_id`,
    [showId, userId],
  );
  return { left: r.rowCount > 0, holdId: r.rows[0]?.hold_id ?? null };
}

/** The entries still waiting, in line order: who an offer goes to first. */
export async function waitingEntries(tx: Queryable, showId: string): Promise<{ user_id: string; count: number }[]> {
  const r = await tx.query<{ user_id: string; count: number }>(
    `select user_id, count from waitlist_entries where show_id = $1 and status = 'waiting' order by position`,
    [showId],
  );
  return r.rows;
}

/** Whether anyone waits for the show, and how many of its seats are free right now (available, or held past their expiry). */
export async function offerFacts(tx: Queryable, showId: string): Promise<{ waiting: boolean; free: number }> {
  // Every release asks; a show nobody waits for must not have its free seats counted (a stadium has 60,000).
  const r = await tx.query<{ waiting: boolean; free: number }>(
    `with w as (
       select exists (select 1 from waitlist_entries where show_id = $1 and status = 'waiting')
              and not exists (select 1 from show_cancellations where show_id = $1) as waiting
     )
     select w.waiting,
            case when w.waiting then
              (select count(*) from show_seats where show_id = $1 and status = 'available')
            + (select count(*) from show_seats where show_id = $1 and status = 'held' and hold_expires_at <= bo_now())
            else 0 end as free
       from w`,
    [showId],
  );
  return r.rows[0]!;
}

/** A cancelled show's list ends: every entry still waiting has `left` (an open offer's hold is released by the cancellation: it reads lapsed). */
export async function endList(tx: Queryable, showId: string): Promise<number> {
  const r = await tx.query(`update waitlist_entries set status = 'left' where show_id = $1 and status = 'waiting'`, [showId]);
  return r.rowCount;
}

/** The shows of this database with someone waiting: the offer worker's round. */
export async function showsWithWaiting(db: Queryable): Promise<string[]> {
  const r = await db.query<{ show_id: string }>(`select distinct show_id from waitlist_entries where status = 'waiting'`);
  return r.rows.map((x) => x.show_id);
}

/** What a join needs to know about the show's rules; null when there is no such show. */
export async function joinRules(db: Queryable, showId: string): Promise<{ per_user_limit: number; started: boolean; cancelled: boolean } | null> {
  const r = await db.query<{ per_user_limit: number; started: boolean; cancelled: boolean }>(
    `select per_user_limit, starts_at <= bo_now() as started,
            exists (select 1 from show_cancellations c where c.show_id = shows.id) as cancelled
       from shows where id = $1`,
    [showId],
  );
  return r.rows[0] ?? null;
}

/**
 * Whether `count` adjacent seats of the show are free (available, or held past their
 * expiry): reads the show's free seats, so a join asks it once, under the list's lock.
 */
export async function adjacentSeatsFree(tx: Queryable, showId: string, count: number): Promise<boolean> {
  const r = await tx.query<{ free: boolean }>('select cardinality(waitlist_adjacent_free_seats($1, $2::int)) > 0 as free', [showId, count]);
  return r.rows[0]!.free;
}
