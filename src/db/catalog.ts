// Venues, halls and their seats, events.
import type { Queryable } from './client.js';
import type { HallSeat } from '../domain/layout.js';

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
export async function insertHall(db: Queryable, h: HallRow, seats: readonly HallSeat[]): Promise<void> {
  await db.query('insert into halls (id, venue_id, name, seat_count) values ($1, $2, $3, $4)', [h.id, h.venue_id, h.name, h.seat_count]);
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
