// Shows with a layout of the test's own (rows of any length, gaps in the numbering,
// sections, tiers), and a judge of best-available answers that reads the seat rows
// from PostgreSQL: which seats are free, which runs are left.
import type { Queryable } from '../../src/db/client.js';
import type { LayoutRow } from '../../src/domain/layout.js';
import type { TestService } from './service.js';

/** Venue, hall (this layout), event and show through the admin API. */
export async function createLayoutShow(
  t: TestService,
  rows: LayoutRow[],
  o: { priceTiers: Record<string, number>; per_user_limit?: number; hold_ttl_seconds?: number },
): Promise<{ showId: string }> {
  const token = t.adminToken;
  const must = (r: { status: number; text: string }, want: number) => {
    if (r.status !== want) throw new Error(`expected ${want}, got ${r.status}: ${r.text}`);
  };
  const venue = await t.http.post('/v1/admin/venues', { name: 'Best Arena', city: 'Testville', timezone: 'UTC' }, token);
  must(venue, 201);
  const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'Bowl', layout: { rows } }, token);
  must(hall, 201);
  const event = await t.http.post('/v1/admin/events', { title: 'Best Match', kind: 'sport', duration_minutes: 100 }, token);
  must(event, 201);
  const show = await t.http.post('/v1/admin/shows', {
    event_id: event.body.id, hall_id: hall.body.id,
    starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: o.priceTiers,
    hold_ttl_seconds: o.hold_ttl_seconds ?? 600, per_user_limit: o.per_user_limit ?? 10, waiting_room: false,
  }, token);
  must(show, 201);
  return { showId: show.body.id };
}

export interface SeatPlace {
  seat_id: string;
  row_no: number;
  seat_no: number;
  section: string | null;
  status: string;
  hold_id: string | null;
}

/** Every seat of the show with where it sits and its state, in layout order. */
export async function seatPlaces(db: Queryable, showId: string): Promise<SeatPlace[]> {
  const r = await db.query<SeatPlace>(
    `select seat_id, row_no, seat_no, section,
            case when status = 'held' and hold_expires_at <= bo_now() then 'available' else status end as status, hold_id
       from show_seats where show_id = $1 order by row_no, seat_no`,
    [showId],
  );
  return r.rows;
}

/** The longest run of free seats with consecutive numbers in any row. */
export function longestFreeRun(places: readonly SeatPlace[]): number {
  let best = 0;
  let run = 0;
  let prev: SeatPlace | null = null;
  for (const p of places) {
    if (p.status !== 'available') { run = 0; prev = p; continue; }
    run = prev && prev.status === 'available' && prev.row_no === p.row_no && prev.seat_no === p.seat_no - 1 ? run + 1 : 1;
    best = Math.max(best, run);
    prev = p;
  }
  return best;
}

/** True when the seats are one row's consecutive numbers. */
export function adjacent(seats: readonly string[], byId: ReadonlyMap<string, SeatPlace>): boolean {
  const places = seats.map((s) => byId.get(s)!).sort((a, b) => a.seat_no - b.seat_no);
  return places.every((p, i) => i === 0 || (p.row_no === places[0]!.row_no && p.seat_no === places[i - 1]!.seat_no + 1));
}
