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

/**
 * Whether any of these changes of the show (by seat_version) is still unpublished: a
 * map read that saw them waits for the publisher (it never publishes itself).
 */
export async function stillPending(db: Queryable, showId: string, seatVersions: readonly number[]): Promise<boolean> {
  const r = await db.query<{ pending: boolean }>(
    'select exists (select from seat_changes where show_id = $1 and seat_version = any ($2::bigint[])) as pending',
    [showId, seatVersions],
  );
  return r.rows[0]!.pending;
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
 * The deltas of batches after `after`, at most `batches` of them, in batch order,
 * and the last batch number published (`head`), read in one snapshot.
 * Batches commit in number order (one publisher at a time), so the deltas are
 * always a run of whole batches with nothing missing before it, unless a batch is
 * gone: deleted by retention, or a number the publisher skipped after a server
 * restart (migrations/0027). The caller checks the first number, and `head` when
 * there are no deltas.
 */
export async function publishedDeltas(db: Queryable, after: number, batches: number): Promise<{ head: number; deltas: PublishedDelta[] }> {
  const r = await db.query<PublishedDelta & { head: number }>(
    `select f.published_seq as head, d.published_seq, d.show_id, d.map_version, d.changes,
            extract(epoch from clock_timestamp() - d.oldest_change_at)::float8 as lag_seconds
       from seat_feed f
       left join seat_deltas d on d.published_seq > $1 and d.published_seq <= $1 + $2
      order by d.published_seq, d.show_id`,
    [after, batches],
  );
  const head = Number(r.rows[0]?.head ?? after);
  const deltas = r.rows.filter((row) => row.show_id !== null).map(({ head: _, ...d }) => d);
  return { head, deltas };
}
