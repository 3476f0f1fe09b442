// Shows: settings, search, and the seat rows each show gets from its hall.
import type { Queryable } from './client.js';
import type { Position } from '../domain/paging.js';
import { afterParams, positionColumn } from './paging.js';
import { createShowSeats } from './seatTransitions.js';

export interface ShowSettings {
  event_id: string;
  hall_id: string;
  starts_at: string;
  sale_opens_at: string | null;
  currency: string;
  price_tiers: Record<string, number>;
  hold_ttl_seconds: number;
  per_user_limit: number;
  cancel_until_minutes_before: number;
  waiting_room: boolean;
  expected_demand: number;
}

export interface ShowView {
  id: string;
  event: { id: string; title: string; kind: string };
  venue: { id: string; name: string; city: string; timezone: string };
  hall: { id: string; name: string };
  starts_at: string;
  sale_opens_at: string;
  currency: string;
  price_tiers: Record<string, number>;
  hold_ttl_seconds: number;
  per_user_limit: number;
  cancel_until_minutes_before: number;
  waiting_room: boolean;
  expected_demand: number;
  status: 'on_sale' | 'cancelled';
}

const SHOW_COLUMNS = `
         s.id,
         json_build_object('id', e.id, 'title', e.title, 'kind', e.kind) as event,
         json_build_object('id', v.id, 'name', v.name, 'city', v.city, 'timezone', v.timezone) as venue,
         json_build_object('id', h.id, 'name', h.name) as hall,
         s.starts_at, s.sale_opens_at, s.currency, s.price_tiers, s.hold_ttl_seconds,
         s.per_user_limit, s.cancel_until_minutes_before, s.waiting_room, s.expected_demand,
         case when s.cancelled_at is null then 'on_sale' else 'cancelled' end as status`;
const SHOW_FROM = `
    from shows s
    join events e on e.id = s.event_id
    join halls h on h.id = s.hall_id
    join venues v on v.id = h.venue_id`;
const SHOW_VIEW = `select ${SHOW_COLUMNS} ${SHOW_FROM}`;

function toView(r: Omit<ShowView, 'starts_at' | 'sale_opens_at'> & { starts_at: Date; sale_opens_at: Date }): ShowView {
  return { ...r, starts_at: r.starts_at.toISOString(), sale_opens_at: r.sale_opens_at.toISOString() };
}

/** Inserts the show and one available seat row per hall seat, in one statement each; returns the seats made. */
export async function insertShow(db: Queryable, id: string, s: ShowSettings): Promise<number> {
  await insertShowRow(db, id, s);
  return createShowSeats(db, id, s.hall_id);
}

/** The show's row alone (its seats are made on its shard); returns sale_opens_at as stored (its default is the database's now). */
export async function insertShowRow(db: Queryable, id: string, s: ShowSettings): Promise<string> {
  const r = await db.query<{ sale_opens_at: Date }>(
    `insert into shows (id, event_id, hall_id, starts_at, sale_opens_at, currency, price_tiers,
                        hold_ttl_seconds, per_user_limit, cancel_until_minutes_before, waiting_room, expected_demand)
     values ($1, $2, $3, $4, coalesce($5::timestamptz, least(bo_now(), $4::timestamptz)), $6, $7, $8, $9, $10, $11, $12)
     returning sale_opens_at`,
    [id, s.event_id, s.hall_id, s.starts_at, s.sale_opens_at, s.currency, JSON.stringify(s.price_tiers),
      s.hold_ttl_seconds, s.per_user_limit, s.cancel_until_minutes_before, s.waiting_room, s.expected_demand],
  );
  return r.rows[0]!.sale_opens_at.toISOString();
}

/**
 * The copy of a show's row its shard keeps (the claim reads the sale window, limits
 * and prices there): written when the show is made, and again with every change.
 */
export async function writeShowCopy(db: Queryable, id: string, s: ShowSettings & { sale_opens_at: string }): Promise<void> {
  await db.query(
    `insert into shows (id, event_id, hall_id, starts_at, sale_opens_at, currency, price_tiers,
                        hold_ttl_seconds, per_user_limit, cancel_until_minutes_before, waiting_room, expected_demand)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     on conflict (id) do update set event_id = excluded.event_id, starts_at = excluded.starts_at, sale_opens_at = excluded.sale_opens_at,
       currency = excluded.currency, price_tiers = excluded.price_tiers, hold_ttl_seconds = excluded.hold_ttl_seconds,
       per_user_limit = excluded.per_user_limit, cancel_until_minutes_before = excluded.cancel_until_minutes_before,
       waiting_room = excluded.waiting_room, expected_demand = excluded.expected_demand`,
    [id, s.event_id, s.hall_id, s.starts_at, s.sale_opens_at, s.currency, JSON.stringify(s.price_tiers),
      s.hold_ttl_seconds, s.per_user_limit, s.cancel_until_minutes_before, s.waiting_room, s.expected_demand],
  );
}

/**
 * Refreshes the planner's statistics of show_seats. A show's seats arrive in one
 * statement, and until autovacuum analyzes the table (never, where it is off) the
 * planner believes the show has a handful: it then combines the hold's index with
 * the primary key's show prefix and reads every seat of the show to find a hold's two.
 */
export async function analyzeShowSeats(db: Queryable): Promise<void> {
  await db.script('analyze show_seats');
}

export async function findShowSettings(db: Queryable, id: string): Promise<(ShowSettings & { id: string }) | null> {
  const r = await db.query<ShowSettings & { id: string; starts_at: Date; sale_opens_at: Date }>(
    `select id, event_id, hall_id, starts_at, sale_opens_at, currency, price_tiers, hold_ttl_seconds,
            per_user_limit, cancel_until_minutes_before, waiting_room, expected_demand
       from shows where id = $1`,
    [id],
  );
  const row = r.rows[0];
  return row ? { ...row, starts_at: new Date(row.starts_at).toISOString(), sale_opens_at: new Date(row.sale_opens_at).toISOString() } : null;
}

export async function updateShow(db: Queryable, id: string, s: ShowSettings): Promise<void> {
  await db.query(
    `update shows set event_id = $2, starts_at = $3, sale_opens_at = $4, currency = $5, price_tiers = $6,
            hold_ttl_seconds = $7, per_user_limit = $8, cancel_until_minutes_before = $9, waiting_room = $10,
            expected_demand = $11
      where id = $1`,
    [id, s.event_id, s.starts_at, s.sale_opens_at, s.currency, JSON.stringify(s.price_tiers),
      s.hold_ttl_seconds, s.per_user_limit, s.cancel_until_minutes_before, s.waiting_room, s.expected_demand],
  );
}

/** The hall a show is in (a show never changes hall), or null when there is no such show. */
export async function showHallId(db: Queryable, id: string): Promise<string | null> {
  const r = await db.query<{ hall_id: string }>('select hall_id from shows where id = $1', [id]);
  return r.rows[0]?.hall_id ?? null;
}

export async function findShow(db: Queryable, id: string): Promise<ShowView | null> {
  const r = await db.query<Parameters<typeof toView>[0]>(`${SHOW_VIEW} where s.id = $1`, [id]);
  return r.rows[0] ? toView(r.rows[0]) : null;
}

export interface ShowSearch {
  city?: string;
  event?: string;
  /** YYYY-MM-DD, read in each venue's own timezone. */
  date?: string;
  /** Words that begin the title's words; see bo_title_matches in migrations/0017. */
  q?: string;
}

/** Shows that match the filters, soonest first; with `typos`, a word of q may be one letter off. */
export async function searchShows(db: Queryable, q: ShowSearch, typos: boolean, limit: number): Promise<ShowView[]> {
  const r = await db.query<Parameters<typeof toView>[0]>(
    `${SHOW_VIEW}
      where ($1::text is null or lower(v.city) = lower($1))
        and ($2::text is null or s.event_id = $2)
        and ($3::date is null or (s.starts_at at time zone v.timezone)::date = $3::date)
        -- without a date, the shows still to come
        and ($3::date is not null or s.starts_at >= (select bo_now()))
        and bo_title_matches(e.title, $5::text, $6)
        -- a cancelled show leaves public listings (GET /v1/shows/{id} still answers)
        and s.cancelled_at is null
      order by s.starts_at, s.id
      limit $4`,
    [q.city ?? null, q.event ?? null, q.date ?? null, limit, q.q ?? null, typos],
  );
  return r.rows.map(toView);
}

export interface ShowFilter {
  venue_id?: string;
  hall_id?: string;
  event_id?: string;
}

/** Shows in creation order after a position, past ones included: what operators made. */
export async function listShowsCreated(db: Queryable, f: ShowFilter, after: Position | null, limit: number) {
  const r = await db.query<Parameters<typeof toView>[0] & { position_at: string }>(
    `select ${SHOW_COLUMNS}, ${positionColumn('s')} ${SHOW_FROM}
      where (s.created_at, s.id) > ($1::timestamptz, $2::text)
        and ($4::text is null or h.venue_id = $4)
        and ($5::text is null or s.hall_id = $5)
        and ($6::text is null or s.event_id = $6)
      order by s.created_at, s.id
      limit $3`,
    [...afterParams(after), limit, f.venue_id ?? null, f.hall_id ?? null, f.event_id ?? null],
  );
  return r.rows.map(({ position_at, ...show }) => ({ ...toView(show), position: { at: position_at, id: show.id } }));
}

/** The catalog's mark of a cancelled show (its status; listings leave it out); the first cancellation's time and reason stay. */
export async function markShowCancelled(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    'update shows set cancelled_at = coalesce(cancelled_at, now()), cancel_reason = coalesce(cancel_reason, $2) where id = $1',
    [id, reason],
  );
}

/** Deletes a show's catalog rows (its inventory went first: src/app/showCancellation.ts deleteShow). */
export async function deleteShow(tx: Queryable, id: string): Promise<boolean> {
  await tx.query('delete from waiting_room_changes where show_id = $1', [id]);
  return (await tx.query('delete from shows where id = $1', [id])).rowCount === 1;
}
