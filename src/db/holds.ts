// The hold: claim (migrations/0002_claim_seats.sql), read, release.
import type { Queryable } from './client.js';
import type { ClaimOutcome } from '../domain/holds.js';

export interface ClaimResult {
  outcome: ClaimOutcome;
  taken: string[] | null;
  expires_at: Date | null;
  amount: number | null;
  currency: string | null;
  seat_limit: number | null;
  seats_had: number | null;
  opens_at: Date | null;
}

/** The claim: one round trip that takes every seat or none. See migrations/0002_claim_seats.sql (and 0009). */
export async function claimSeats(
  db: Queryable,
  c: { showId: string; holdId: string; userId: string; seats: readonly string[] },
): Promise<ClaimResult> {
  const r = await db.query<ClaimResult>('select * from claim_seats($1, $2, $3, $4::text[])', [
    c.showId, c.holdId, c.userId, c.seats,
  ]);
  return r.rows[0]!;
}

export interface HoldRow {
  hold_id: string;
  show_id: string;
  user_id: string;
  seats: string[];
  /** active, paying, confirmed, released or expired (an active hold past its expiry reads as expired). */
  status: string;
  expires_at: Date;
  amount: number;
  currency: string;
}

export async function findHold(db: Queryable, holdId: string): Promise<HoldRow | null> {
  const r = await db.query<HoldRow>(
    `select id as hold_id, show_id, user_id, seats, expires_at, amount, currency,
            case when status = 'active' and expires_at <= bo_now() then 'expired' else status end as status
       from holds where id = $1`,
    [holdId],
  );
  return r.rows[0] ?? null;
}

/**
 * Releases an active hold of this user and frees its seats at once. Seats are
 * locked in ascending order like the claim, so a release and a claim never
 * deadlock. Returns false when there was no active hold to release (an expired
 * hold stays expired: its seats are already free for the next claim).
 */
export async function releaseHold(db: Queryable, holdId: string, userId: string): Promise<boolean> {
  const r = await db.query<{ released: number }>(
    `with hold as (
       update holds set status = 'released'
        where id = $1 and user_id = $2 and status = 'active' and expires_at > bo_now()
       returning id, show_id
     ), seats as (
       select s.show_id, s.seat_id from show_seats s join hold h on s.show_id = h.show_id and s.hold_id = h.id
        where s.status = 'held'
        order by s.seat_id
          for update of s
     ), freed as (
       update show_seats s
          set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null,
              version = nextval('seat_version_seq')
         from seats f
        where s.show_id = f.show_id and s.seat_id = f.seat_id
       returning 1
     )
     select (select count(*) from hold) as released, (select count(*) from freed) as freed`,
    [holdId, userId],
  );
  return (r.rows[0]?.released ?? 0) > 0;
}
