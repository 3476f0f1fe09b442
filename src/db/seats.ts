// The seat map's reads, and the sweeper's one write.
import type { Queryable } from './client.js';

export interface SeatState {
  seat_id: string;
  /** As the map shows it: available, held or booked. */
  status: 'available' | 'held' | 'booked';
}

export interface SeatStates {
  seats: SeatState[];
  /** The largest change number among the show's seats. */
  version: number;
  /** Holds past their expiry that no write has freed yet (shown as available). */
  lazilyExpired: number;
}

/** Current seat states, judged by the database clock (an expired hold is available, a paying one held). */
export async function seatStates(db: Queryable, showId: string): Promise<SeatStates> {
  const r = await db.query<{ seat_id: string; status: string; expired: boolean; version: number }>(
    `select seat_id, status, (status = 'held' and hold_expires_at <= bo_now()) as expired, version
       from show_seats where show_id = $1`,
    [showId],
  );
  let version = 0;
  let lazilyExpired = 0;
  const seats = r.rows.map((row): SeatState => {
    if (row.version > version) version = row.version;
    if (row.expired) lazilyExpired++;
    const status = row.expired ? 'available' : row.status === 'paying' ? 'held' : (row.status as SeatState['status']);
    return { seat_id: row.seat_id, status };
  });
  return { seats, version, lazilyExpired };
}

/**
 * Frees seats whose hold has expired, so the map's version grows and viewers see
 * them. Not needed for correctness: the claim treats them as free anyway. Never
 * waits on a row lock (SKIP LOCKED), so it cannot slow or deadlock a claim.
 */
export async function sweepExpiredSeats(db: Queryable, batch: number): Promise<{ show_id: string; seat_id: string }[]> {
  const r = await db.query<{ show_id: string; seat_id: string }>(
    `with expired as (
       select show_id, seat_id from show_seats
        where status = 'held' and hold_expires_at <= bo_now()
        order by show_id, seat_id
        limit $1
          for update skip locked
     )
     update show_seats s
        set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null,
            version = nextval('seat_version_seq')
       from expired e
      where s.show_id = e.show_id and s.seat_id = e.seat_id
     returning s.show_id, s.seat_id`,
    [batch],
  );
  await db.query(`update holds set status = 'expired' where status = 'active' and expires_at <= bo_now()`);
  return r.rows;
}
