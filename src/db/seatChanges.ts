// The seat change feed's SQL (docs/live-map.md): publishing committed changes as
// per-show deltas with their map versions, and reading published batches in order.
// The changes are written by a trigger on show_seats (migrations/0011_seat_changes.sql).
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

export interface PublishedDelta {
  published_seq: number;
  show_id: string;
  map_version: number;
  changes: { seat: string; status: 'available' | 'held' | 'booked' }[];
  /** From the oldest write in the delta to this read, by the database clock. */
  lag_seconds: number;
}

/** The last batch published so far: a new reader starts after it. */
export async function lastPublishedBatch(db: Queryable): Promise<number> {
  const r = await db.query<{ published_seq: number }>('select published_seq from seat_feed');
  return r.rows[0]?.published_seq ?? 0;
}

/**
 * The deltas of batches after `after`, at most `batches` of them, in batch order.
 * Batches commit in number order (one publisher at a time), so what this returns
 * is always a run of whole batches with nothing missing before it, unless
 * retention deleted it (the caller checks the first number).
 */
export async function publishedDeltas(db: Queryable, after: number, batches: number): Promise<PublishedDelta[]> {
  const r = await db.query<PublishedDelta>(
    `select published_seq, show_id, map_version, changes,
            extract(epoch from clock_timestamp() - oldest_change_at)::float8 as lag_seconds
       from seat_deltas
      where published_seq > $1 and published_seq <= $1 + $2
      order by published_seq, show_id`,
    [after, batches],
  );
  return r.rows;
}
