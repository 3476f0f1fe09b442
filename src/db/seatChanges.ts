// The seat change feed's SQL (docs/live-map.md): publishing committed changes
// with their map versions, and reading published batches in order. The rows are
// written by a trigger on show_seats (migrations/0011_seat_changes.sql).
import type { Queryable } from './client.js';

export interface PublishResult {
  /** The batch number, or null when nothing was published (nothing pending, or another publisher busy). */
  batch: number | null;
  changes: number;
  shows: number;
}

/**
 * One publish pass (any instance may call it; passes are serialized in the
 * database). `wait`: wait for a pass in progress instead of leaving the work to it.
 */
export async function publishSeatChanges(db: Queryable, o: { limit: number; keepSeconds: number | null; wait: boolean }): Promise<PublishResult> {
  const r = await db.query<PublishResult>('select batch, changes, shows from publish_seat_changes($1, $2, $3)', [o.limit, o.keepSeconds, o.wait]);
  return r.rows[0]!;
}

/** Publishes what is committed now, waiting for a pass in progress (a map read, before it reads the version). */
export async function publishPending(db: Queryable): Promise<void> {
  await publishSeatChanges(db, { limit: 5000, keepSeconds: null, wait: true });
}

export interface PublishedChange {
  published_seq: number;
  show_id: string;
  seat_id: string;
  status: 'available' | 'held' | 'booked';
  seat_version: number;
  map_version: number;
  /** From the write to this read, by the database clock. */
  lag_seconds: number;
}

/** The last batch published so far: a new reader starts after it. */
export async function lastPublishedBatch(db: Queryable): Promise<number> {
  const r = await db.query<{ published_seq: number }>('select published_seq from seat_feed');
  return r.rows[0]?.published_seq ?? 0;
}

/**
 * The changes of batches after `after`, at most `batches` of them, in batch order.
 * Batches commit in number order (one publisher at a time), so what this returns
 * is always a run of whole batches with nothing missing before it, unless
 * retention deleted it (the caller checks the first number).
 */
export async function publishedChanges(db: Queryable, after: number, batches: number): Promise<PublishedChange[]> {
  const r = await db.query<PublishedChange>(
    `select published_seq, show_id, seat_id, status, seat_version, map_version,
            extract(epoch from clock_timestamp() - changed_at)::float8 as lag_seconds
       from seat_changes
      where published_seq > $1 and published_seq <= $1 + $2
      order by published_seq, show_id, seat_version`,
    [after, batches],
  );
  return r.rows;
}
