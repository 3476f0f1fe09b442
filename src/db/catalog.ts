// Venues, halls and their seats, events.
import type { Queryable } from './client.js';
import type { HallSeat, SectionPlacement } from '../domain/layout.js';
import type { Position } from '../domain/paging.js';
import { afterParams, positionColumn, withPosition } from './paging.js';

export interface VenueRow { id: string; name: string; city: string; timezone: string }
export interface HallRow { id: string; venue_id: string; name: string; seat_count: number }
export interface EventRow { id: string; title: string; kind: string; duration_minutes: number | null }

export async function isKnownTimezone(db: Queryable, tz: string): Promise<boolean> {
  const r = await db.query('select 1 from pg_timezone_names where name = $1', [tz]);
  return r.rowCount > 0;
}

export async function insertVenue(db: Queryable, v: VenueRow): Promise<void> {
  await db.query('insert into venues (id, name, city, timezone) values ($1, $2, $3, $4)', [v.id, v.name, v.city, v.timezone]);
}

export async function venueExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('select 1 from venues where id = $1', [id])).rowCount > 0;
}

/** The hall and all its seats in two statements, whatever the size (arrays, not 60,000 inserts). */
export async function insertHall(
  db: Queryable, h: HallRow, seats: readonly HallSeat[], sectionPlan: ReadonlyMap<string, SectionPlacement> = new Map(),
): Promise<void> {
  await db.query(
    'insert into halls (id, venue_id, name, seat_count, section_plan) values ($1, $2, $3, $4, $5)',
    [h.id, h.venue_id, h.name, h.seat_count, sectionPlan.size ? JSON.stringify(Object.fromEntries(sectionPlan)) : null],
  );
  await db.query(
    `insert into hall_seats (hall_id, seat_id, position, row_label, number, section, tier, accessible)
     select $1, s.seat_id, s.position, s.row_label, s.number, s.section, s.tier, s.accessible
       from unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::boolean[])
            with ordinality as s(seat_id, row_label, number, section, tier, accessible, position)`,
    [h.id, seats.map((s) => s.seat_id), seats.map((s) => s.row), seats.map((s) => s.number),
      seats.map((s) => s.section), seats.map((s) => s.tier), seats.map((s) => s.accessible)],
  );
}

export async function findHall(db: Queryable, id: string): Promise<HallRow | null> {
  const r = await db.query<HallRow>('select id, venue_id, name, seat_count from halls where id = $1', [id]);
  return r.rows[0] ?? null;
}

export async function hallTiers(db: Queryable, hallId: string): Promise<string[]> {
  const r = await db.query<{ tier: string }>('select distinct tier from hall_seats where hall_id = $1', [hallId]);
  return r.rows.map((x) => x.tier);
}

/** How many seats of each tier the hall has, by tier name. */
export async function hallTierCounts(db: Queryable, hallId: string): Promise<{ tier: string; seats: number }[]> {
  const r = await db.query<{ tier: string; seats: number }>(
    'select tier, count(*) as seats from hall_seats where hall_id = $1 group by tier order by tier', [hallId]);
  return r.rows;
}

/** Where the layout places the hall's sections on the plan, by section (empty when it places none). */
export async function hallSectionPlan(db: Queryable, hallId: string): Promise<Map<string, SectionPlacement>> {
  const r = await db.query<{ section_plan: Record<string, SectionPlacement> | null }>('select section_plan from halls where id = $1', [hallId]);
  return new Map(Object.entries(r.rows[0]?.section_plan ?? {}));
}

/** The hall's seats in layout order. */
export async function hallSeats(db: Queryable, hallId: string): Promise<HallSeat[]> {
  const r = await db.query<{ seat_id: string; row_label: string; number: number; section: string | null; tier: string; accessible: boolean }>(
    'select seat_id, row_label, number, section, tier, accessible from hall_seats where hall_id = $1 order by position',
    [hallId],
  );
  return r.rows.map((s) => ({ seat_id: s.seat_id, row: s.row_label, number: s.number, section: s.section, tier: s.tier, accessible: s.accessible }));
}

export async function insertEvent(db: Queryable, e: EventRow): Promise<void> {
  await db.query('insert into events (id, title, kind, duration_minutes) values ($1, $2, $3, $4)', [e.id, e.title, e.kind, e.duration_minutes]);
}

export async function eventExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('select 1 from events where id = $1', [id])).rowCount > 0;
}

export async function countVenues(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>('select count(*) as n from venues');
  return r.rows[0]!.n;
}

/** Venues in creation order after a position; `limit` rows at most. */
export async function listVenues(db: Queryable, after: Position | null, limit: number) {
  const r = await db.query<VenueRow & { position_at: string }>(
    `select v.id, v.name, v.city, v.timezone, ${positionColumn('v')}
       from venues v
      where (v.created_at, v.id) > ($1::timestamptz, $2::text)
      order by v.created_at, v.id
      limit $3`,
    [...afterParams(after), limit],
  );
  return r.rows.map(withPosition);
}

/** Halls in creation order after a position, of one venue when given. */
export async function listHalls(db: Queryable, filter: { venue_id?: string }, after: Position | null, limit: number) {
  const r = await db.query<HallRow & { position_at: string }>(
    `select h.id, h.venue_id, h.name, h.seat_count, ${positionColumn('h')}
       from halls h
      where (h.created_at, h.id) > ($1::timestamptz, $2::text)
        and ($4::text is null or h.venue_id = $4)
      order by h.created_at, h.id
      limit $3`,
    [...afterParams(after), limit, filter.venue_id ?? null],
  );
  return r.rows.map(withPosition);
}

/** Events in creation order after a position. */
export async function listEvents(db: Queryable, after: Position | null, limit: number) {
  const r = await db.query<EventRow & { position_at: string }>(
    `select e.id, e.title, e.kind, e.duration_minutes, ${positionColumn('e')}
       from events e
      where (e.created_at, e.id) > ($1::timestamptz, $2::text)
      order by e.created_at, e.id
      limit $3`,
    [...afterParams(after), limit],
  );
  return r.rows.map(withPosition);
}

export interface EventSearch {
  city?: string;
  /** Words that begin the title's words; see bo_title_matches in migrations/0017. */
  q?: string;
  /** YYYY-MM-DD, read in each venue's own timezone. */
  date?: string;
}

export interface UpcomingEvent { id: string; title: string; kind: string; next_show_at: string }

/**
 * Events with a show that has not started (its sale open or not yet), each with
 * the earliest such show that matches the filters; soonest first. With `typos`, a
 * word of q may be one letter off (see bo_title_matches).
 */
export async function searchUpcomingEvents(db: Queryable, q: EventSearch, typos: boolean, limit: number): Promise<UpcomingEvent[]> {
  const r = await db.query<{ id: string; title: string; kind: string; next_show_at: Date }>(
    `select e.id, e.title, e.kind, min(s.starts_at) as next_show_at
       from events e
       join shows s on s.event_id = e.id
       join halls h on h.id = s.hall_id
       join venues v on v.id = h.venue_id
      where s.starts_at > (select bo_now()) and s.cancelled_at is null
        and ($1::text is null or lower(v.city) = lower($1))
        and bo_title_matches(e.title, $2::text, $5)
        and ($3::date is null or (s.starts_at at time zone v.timezone)::date = $3::date)
      group by e.id
      order by next_show_at, e.id
      limit $4`,
    [q.city ?? null, q.q ?? null, q.date ?? null, limit, typos],
  );
  return r.rows.map((e) => ({ id: e.id, title: e.title, kind: e.kind, next_show_at: new Date(e.next_show_at).toISOString() }));
}
