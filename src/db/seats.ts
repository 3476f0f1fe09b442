// The seat map's reads (its writes are in seatTransitions.ts).
import type { Queryable } from './client.js';
import type { SeatStatus } from '../domain/states.js';

export interface SeatState {
  seat_id: string;
  /** As the map shows it: available, held or booked. */
  status: 'available' | 'held' | 'booked';
}

export interface SeatStates {
  seats: SeatState[];
  /** The show's map version (shows.map_version), read in the same statement as the seats: every change published up to it is in `seats`. */
  version: number;
  /** Holds past their expiry that no write has freed yet (shown as available). */
  lazilyExpired: number;
}

/** Current seat states, judged by the database clock (an expired hold is available, a paying one held). */
export async function seatStates(db: Queryable, showId: string): Promise<SeatStates> {
  const r = await db.query<{ seat_id: string; status: SeatStatus; expired: boolean; map_version: number }>(
    `select seat_id, status, (status = 'held' and hold_expires_at <= bo_now()) as expired,
            (select map_version from shows where id = $1) as map_version
       from show_seats where show_id = $1`,
    [showId],
  );
  const version = r.rows[0]?.map_version ?? 0;
  let lazilyExpired = 0;
  const seats = r.rows.map((row): SeatState => {
    if (row.expired) lazilyExpired++;
    const status = row.expired ? 'available' : row.status === 'paying' ? 'held' : row.status;
    return { seat_id: row.seat_id, status };
  });
  return { seats, version, lazilyExpired };
}
