// Service-wide figures for /metrics, read from the database at scrape time so
// that every instance reports the same truth. Each returns labelled values.
import type { Queryable } from './client.js';

export interface Figure {
  labels: Record<string, string>;
  value: number;
}

export async function bookingsByStatus(db: Queryable): Promise<Figure[]> {
  const r = await db.query<{ status: string; n: number }>('select status, count(*) as n from bookings group by status');
  return r.rows.map((row) => ({ labels: { status: row.status }, value: row.n }));
}

/** Payment attempts whose outcome is not known yet, and the age of the oldest. */
export async function reconciliationBacklog(db: Queryable): Promise<{ open: number; oldestSeconds: number }> {
  const r = await db.query<{ open: number; oldest: number | null }>(
    `select count(*) as open, extract(epoch from now() - min(created_at))::float8 as oldest
       from payment_attempts where status in ('created', 'unknown')`);
  return { open: r.rows[0]!.open, oldestSeconds: r.rows[0]!.oldest ?? 0 };
}

export async function refundsByReason(db: Queryable): Promise<Figure[]> {
  const r = await db.query<{ reason: string; status: string; n: number }>('select reason, status, count(*) as n from refunds group by 1, 2');
  return r.rows.map((row) => ({ labels: { reason: row.reason, status: row.status }, value: row.n }));
}

/** Seats sold more than once, over all shows (must be 0). */
export async function doubleSoldSeats(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*) as n from (select 1 from booking_seats where sold group by show_id, seat_id having count(*) > 1) d`);
  return r.rows[0]!.n;
}
