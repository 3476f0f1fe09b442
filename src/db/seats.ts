// The seat map's reads (its writes are in seatTransitions.ts).
import type { Queryable } from './client.js';
import type { SeatStatus } from '../domain/states.js';

export interface SeatState {
  seat_id: string;
  /** As the map shows it: available, held or booked. */
  status: 'available' | 'held' | 'booked';
}

export interface SeatStates {
  /** The seats not available in the table (a seat missing here is available). */
  seats: SeatState[];
  /** The show's map version (shows.map_version), read in the same statement as the seats: every change published up to it is in `seats`. */
  version: number;
  /** Holds past their expiry that no write has freed yet (shown as available). */
  lazilyExpired: number;
  /** The show's prices by tier, read in the same statement ({} for no such show). */
  priceTiers: Record<string, number>;
  /**
   * The seat_version of every change of the show this read saw committed but not yet
   * published (in `seats`, not yet counted in `version`).
   */
  pending: number[];
}

/**
 * The seats that are not available (held, paying or booked), judged by the database
 * clock (an expired hold shows as available, a paying one as held); every other
 * seat of the show is available. A stadium's map reads the few seats taken, not its
 * 60,000 rows (parsing every row would be most of a refresh's CPU). The
 * clock is read once for the statement (`(select bo_now())`, an init plan), not once
 * per held seat.
 */
export async function seatStates(db: Queryable, showId: string): Promise<SeatStates> {
  const r = await db.query<{ seat_id: string | null; status: SeatStatus; expired: boolean; map_version: number; price_tiers: Record<string, number> | null; pending: string[] | null }>(
    `select s.map_version, case when t.n is null or t.n = 1 then s.price_tiers end as price_tiers,
            case when t.n is null or t.n = 1 then p.pending end as pending, t.seat_id, t.status, t.expired
       from shows s
       cross join lateral (select array_agg(c.seat_version) as pending from seat_changes c where c.show_id = s.id) p
       left join lateral (
         select seat_id, status, (status = 'held' and hold_expires_at <= (select bo_now())) as expired, row_number() over () as n
           from show_seats where show_id = s.id and status <> 'available'
       ) t on true
      where s.id = $1`,
    [showId],
  );
  const version = r.rows[0]?.map_version ?? 0;
  // On one row only (a stadium may have thousands taken): the prices are parsed once.
  const priceTiers = r.rows.find((row) => row.price_tiers !== null)?.price_tiers ?? {};
  let lazilyExpired = 0;
  const seats: SeatState[] = [];
  for (const row of r.rows) {
    if (row.seat_id === null) continue;
    if (row.expired) lazilyExpired++;
    seats.push({ seat_id: row.seat_id, status: row.expired ? 'available' : row.status === 'paying' ? 'held' : row.status });
  }
  const pending = (r.rows.find((row) => row.pending !== null)?.pending ?? []).map(Number);
  return { seats, version, lazilyExpired, priceTiers, pending };
}
