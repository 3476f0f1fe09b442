// What the waiting room reads from and writes to the database: show rules for the
// in-memory cache (with the database clock), sell-out, and operators' changes.
import type { Queryable } from './client.js';

export interface ShowRuleRow {
  id: string;
  waiting_room: boolean;
  sale_opens_at: Date;
  starts_at: Date;
  per_user_limit: number;
  hold_ttl_seconds: number;
  cancelled: boolean;
}

/** The rules of these shows and the database clock, in one round trip. */
export async function showRules(db: Queryable, ids: readonly string[]): Promise<{ rows: ShowRuleRow[]; now: Date }> {
  const r = await db.query<ShowRuleRow & { now: Date }>(
    `select c.now, s.id, s.waiting_room, s.sale_opens_at, s.starts_at, s.per_user_limit, s.hold_ttl_seconds,
            s.cancelled_at is not null as cancelled
       from (select bo_now() as now) c
       left join shows s on s.id = any ($1::text[])`,
    [ids],
  );
  return { rows: r.rows.filter((row) => row.id !== null), now: r.rows[0]!.now };
}

/** Whether every seat of the show is booked (stops at the first one that is not). */
export async function soldOut(db: Queryable, showId: string): Promise<boolean> {
  const r = await db.query<{ open: boolean }>(
    "select exists (select 1 from show_seats where show_id = $1 and status <> 'booked') as open",
    [showId],
  );
  return !r.rows[0]!.open;
}

/**
 * Whether the caller's hold belongs to a waiting-room show that `admittedShowId`
 * does not admit to: asked only after entering payment changed nothing, to tell
 * 403 QUEUE_REQUIRED from 409 HOLD_EXPIRED.
 */
export async function holdNeedsAdmission(db: Queryable, holdId: string, userId: string, admittedShowId: string | null): Promise<boolean> {
  const r = await db.query<{ needs: boolean }>(
    `select s.waiting_room and s.id is distinct from $3
            and not exists (select 1 from waitlist_entries w where w.hold_id = h.id) as needs
       from holds h join shows s on s.id = h.show_id
      where h.id = $1 and h.user_id = $2`,
    [holdId, userId, admittedShowId],
  );
  return r.rows[0]?.needs ?? false;
}

export async function recordChange(db: Queryable, c: { showId: string; actorId: string; change: Record<string, unknown> }): Promise<void> {
  await db.query('insert into waiting_room_changes (show_id, actor_id, change) values ($1, $2, $3)', [c.showId, c.actorId, JSON.stringify(c.change)]);
}

export interface ChangeRow {
  actor_id: string;
  change: Record<string, unknown>;
  changed_at: Date;
}

export async function recentChanges(db: Queryable, showId: string, limit: number): Promise<ChangeRow[]> {
  const r = await db.query<ChangeRow>(
    'select actor_id, change, changed_at from waiting_room_changes where show_id = $1 order by changed_at desc, id desc limit $2',
    [showId, limit],
  );
  return r.rows;
}
