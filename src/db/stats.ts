import type { Queryable } from './client.js';

/** Holds created and refused per show since the last flush (app/holdTally.ts). */
export interface HoldCounts {
  created: number;
  conflicts: number;
}

/** Adds each show's counts to its show_stats row, in one statement. */
export async function addHoldCounts(db: Queryable, counts: ReadonlyMap<string, HoldCounts>): Promise<void> {
  const ids = [...counts.keys()];
  await db.query(
    `insert into show_stats (show_id, holds_created, hold_conflicts)
     select * from unnest($1::text[], $2::bigint[], $3::bigint[])
     on conflict (show_id) do update
       set holds_created = show_stats.holds_created + excluded.holds_created,
           hold_conflicts = show_stats.hold_conflicts + excluded.hold_conflicts`,
    [ids, ids.map((id) => counts.get(id)!.created), ids.map((id) => counts.get(id)!.conflicts)],
  );
}

export interface ShowStats {
  seats: { available: number; held: number; booked: number };
  holds_created: number;
  hold_conflicts: number;
  bookings_confirmed: number;
  refunds: number;
  /** Refunds the provider refused for good: money an operator has to look at. */
  refunds_failed: number;
  /** Refunds by cause: a booking cancelled by its buyer, or a payment that succeeded after its hold had lost the seats (it expired or was taken). */
  refunds_by_reason: { cancellation: number; seats_lost: number };
  double_sold: number;
}

/** The admin figures of one show, all computed by query (double_sold must be 0). */
export async function showStats(db: Queryable, showId: string): Promise<ShowStats | null> {
  const r = await db.query<Omit<ShowStats, 'seats' | 'refunds_by_reason'> & { available: number; held: number; booked: number; refunds_cancellation: number; refunds_seats_lost: number }>(
    `select
       (select count(*) from show_seats where show_id = $1
          and (status = 'available' or (status = 'held' and hold_expires_at <= (select bo_now())))) as available,
       (select count(*) from show_seats where show_id = $1
          and (status = 'paying' or (status = 'held' and hold_expires_at > (select bo_now())))) as held,
       (select count(*) from show_seats where show_id = $1 and status = 'booked') as booked,
       coalesce((select holds_created from show_stats where show_id = $1), 0) as holds_created,
       coalesce((select hold_conflicts from show_stats where show_id = $1), 0) as hold_conflicts,
       (select count(*) from bookings where show_id = $1 and status = 'confirmed') as bookings_confirmed,
       (select count(*) from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1) as refunds,
       (select count(*) from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1 and r.status = 'failed') as refunds_failed,
       (select count(*) from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1 and r.reason = 'cancellation') as refunds_cancellation,
       (select count(*) from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1 and r.reason = 'seats_lost') as refunds_seats_lost,
       (select count(*) from (select seat_id from booking_seats where show_id = $1 and sold
                               group by seat_id having count(*) > 1) d)
       + (select count(*) from (select seat_id from tickets where show_id = $1 and status = 'valid'
                               group by seat_id having count(*) > 1) d) as double_sold
     where exists (select 1 from shows where id = $1)`,
    [showId],
  );
  const row = r.rows[0];
  if (!row) return null;
  const { available, held, booked, refunds_cancellation, refunds_seats_lost, ...rest } = row;
  return { seats: { available, held, booked }, ...rest, refunds_by_reason: { cancellation: refunds_cancellation, seats_lost: refunds_seats_lost } };
}
