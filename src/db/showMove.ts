// Moving one show's inventory from one database (shard) to another, whole or not at
// all (docs/moving-a-show.md). One transaction on the source locks the show's seat
// rows in seat order (a claim, a release, a payment's seat move on the source now
// waits), then deletes every per-show row, taking each table's deleted rows, their
// count and their checksum from the delete itself (so what is copied is exactly what
// leaves). A second transaction, on the target, inserts them, moves the target's
// seat_version_seq above every copied version, removes a "moved away" mark the show
// may have there, and computes the same checksum over what it now holds: a
// difference aborts both transactions and nothing changes anywhere. The target
// commits, then `onCopied` runs (the caller flips the placement in the control
// database), then the source commits its deletes with a "moved away" mark, and every
// writer that waited on the seat locks finds the show gone and the mark
// (src/db/seatTransitions.ts claimSeats answers "moved").
//
// A crash anywhere leaves: before the target's commit, nothing committed (the source
// rolls back: whole there); after it, before the flip, a copy on the target that the
// placement does not name; after the flip, before the source's commit, the source's
// rows that the placement no longer names. removeShowCopy() deletes such a leftover
// from the side the placement does not name, and leaves the mark there.
//
// Every statement here that writes show_seats or holds is one of this move's copies
// or deletes; test/db/seat-writes.test.ts names this file as their second home.
import { performance } from 'node:perf_hooks';
import type { Database, Queryable } from './client.js';
import { publishSeatChanges } from './seatChanges.js';
import { lockShowSale } from './showCancellations.js';

/** Bounds of the move's own statements: longer than a request's, never unbounded. */
const MOVE_SETTINGS = "set local lock_timeout = '2s'; set local statement_timeout = '9s'; set local timezone = 'UTC'";

/** `from` over $1 (the show id) picks the show's rows of `table` as `t`; `noId` leaves out an identity column the target numbers itself. */
interface PerShow {
  table: string;
  from: string;
  noId?: boolean;
  /** The statement that deletes the show's rows of this table, returning them (as `d`). */
  remove: string;
  /** The statement that inserts rows given in $1 as the text of an array of the table's row type. */
  insert: string;
}

const OF_SHOW = (table: string): string => `${table} t where t.show_id = $1`;
const OF_BOOKINGS = (table: string): string => `${table} t where t.booking_id in (select b.id from bookings b where b.show_id = $1)`;
const OUTBOX_OF_SHOW = `outbox t where (t.topic = 'ticket.issue' and t.payload ->> 'booking_id' in (select b.id from bookings b where b.show_id = $1))
     or (t.topic = 'refund.create' and t.payload ->> 'refund_id' in (select r.id from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1))`;

/**
 * Every per-show table, in the order the target inserts them (referenced rows first);
 * the source deletes in the reverse order. A table a later migration adds for a show
 * must be added here: the move would otherwise leave its rows behind.
 */
const TABLES: readonly PerShow[] = [
  {
    table: 'show_seats', from: OF_SHOW('show_seats'),
    remove: 'delete from show_seats t where t.show_id = $1 returning t.*',
    insert: 'insert into show_seats select * from unnest($1::show_seats[])',
  },
  {
    table: 'holds', from: OF_SHOW('holds'),
    remove: 'delete from holds t where t.show_id = $1 returning t.*',
    insert: 'insert into holds select * from unnest($1::holds[])',
  },
  {
    table: 'bookings', from: OF_SHOW('bookings'),
    remove: 'delete from bookings t where t.show_id = $1 returning t.*',
    insert: 'insert into bookings select * from unnest($1::bookings[])',
  },
  {
    table: 'booking_seats', from: OF_SHOW('booking_seats'),
    remove: 'delete from booking_seats t where t.show_id = $1 returning t.*',
    insert: 'insert into booking_seats select * from unnest($1::booking_seats[])',
  },
  {
    table: 'payment_attempts', from: OF_BOOKINGS('payment_attempts'),
    remove: 'delete from payment_attempts t where t.booking_id in (select b.id from bookings b where b.show_id = $1) returning t.*',
    insert: 'insert into payment_attempts select * from unnest($1::payment_attempts[])',
  },
  {
    table: 'refunds', from: OF_BOOKINGS('refunds'),
    remove: 'delete from refunds t where t.booking_id in (select b.id from bookings b where b.show_id = $1) returning t.*',
    insert: 'insert into refunds select * from unnest($1::refunds[])',
  },
  {
    table: 'tickets', from: OF_SHOW('tickets'),
    remove: 'delete from tickets t where t.show_id = $1 returning t.*',
    insert: 'insert into tickets select * from unnest($1::tickets[])',
  },
  {
    // The outbox has no show column: its rows name a booking or a refund. Ids are the
    // target's own (an identity); a leased row is copied with its lease, and a worker
    // that finishes it on the source finds it gone: delivered again, idempotently.
    table: 'outbox', from: OUTBOX_OF_SHOW, noId: true,
    remove: `delete from ${OUTBOX_OF_SHOW} returning t.*`,
    insert: `insert into outbox (topic, payload, attempts, next_attempt_at, lease_until, done_at, last_error, created_at)
             select topic, payload, attempts, next_attempt_at, lease_until, done_at, last_error, created_at
               from unnest($1::outbox[])`,
  },
  {
    table: 'show_stats', from: OF_SHOW('show_stats'),
    remove: 'delete from show_stats t where t.show_id = $1 returning t.*',
    insert: 'insert into show_stats select * from unnest($1::show_stats[])',
  },
  {
    table: 'show_cancellations', from: OF_SHOW('show_cancellations'),
    remove: 'delete from show_cancellations t where t.show_id = $1 returning t.*',
    insert: 'insert into show_cancellations select * from unnest($1::show_cancellations[])',
  },
  {
    table: 'waitlist_entries', from: OF_SHOW('waitlist_entries'),
    remove: 'delete from waitlist_entries t where t.show_id = $1 returning t.*',
    insert: 'insert into waitlist_entries select * from unnest($1::waitlist_entries[])',
  },
  {
    // Changes not yet published: the target's publisher publishes them (their
    // seat_version kept). Published deltas (seat_deltas) are numbered by the source's
    // batches and stay there until its retention forgets them.
    table: 'seat_changes', from: OF_SHOW('seat_changes'),
    remove: 'delete from seat_changes t where t.show_id = $1 returning t.*',
    insert: 'insert into seat_changes select * from unnest($1::seat_changes[])',
  },
];

/**
 * A row's checksum text: its text form (each column's own output: timestamps to the
 * microsecond, in UTC), without the identity column where the target numbers its own.
 */
const rowText = (t: PerShow, alias: string): string => (t.noId ? `(to_jsonb(${alias}) - 'id')::text` : `${alias}::text`);
/**
 * Row count and the sum of the rows' 64-bit hashes: the same rows give the same sum
 * on any database, in any order, without sorting 60,000 rows (which cost more than
 * the copy itself).
 */
const summary = (t: PerShow, alias: string): string =>
  `count(*)::int as n, coalesce(sum(hashtextextended(${rowText(t, alias)}, 0)::numeric), 0)::text as sum`;

export interface TableCopy {
  rows: number;
  sum: string;
}

export interface MoveResult {
  showId: string;
  /** Per table: rows moved and their checksum (the same on both sides). */
  tables: Record<string, TableCopy>;
  /** The largest seat version copied; the target's sequence now continues above it. */
  maxVersion: number;
  /** From locking the source's seats to the source's commit: how long the show's writes waited. */
  pausedMs: number;
  /** Of pausedMs, the copy into the target and its commit. */
  targetMs: number;
  /** Of pausedMs, the caller's onCopied. */
  onCopiedMs: number;
  /** Milliseconds per step on the source (lock, then each table's delete); lockFirstPass: ms of the skip-locked pass; lockedAtOnce: seats it took; lockRetries: lock races lost. */
  steps: Record<string, number>;
}

export class ShowMoveError extends Error {
  constructor(
    readonly reason: 'show_not_on_target' | 'target_not_empty' | 'checksum_mismatch' | 'nothing_to_move',
    message: string,
    readonly tables: string[] = [],
  ) {
    super(message);
    this.name = 'ShowMoveError';
  }
}

/**
 * Moves the show's inventory from `source` to `target` (both with every migration
 * applied and the show's catalog row). `onCopied` runs once the target has
 * committed and before the source does: the caller flips the placement there. A
 * throw from it rolls the source back and removes the target's copy (best effort:
 * a failure of that removal leaves a copy for removeShowCopy).
 */
export async function moveShow(
  source: Database,
  target: Database,
  showId: string,
  onCopied: (copied: Omit<MoveResult, 'pausedMs' | 'onCopiedMs' | 'steps'>) => Promise<void>,
): Promise<MoveResult> {
  const src = source.as('show_move');
  const dst = target.as('show_move');
  let lockedAt = 0;
  let targetMs = 0;
  let onCopiedMs = 0;
  let committedTarget = false;
  let flipped = false;
  const steps: Record<string, number> = {};
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await run();
    } catch (err) {
      if (err instanceof Error) err.message = `show move, ${name}: ${err.message}`;
      throw err;
    } finally {
      steps[name] = Math.round(performance.now() - t);
    }
  };
  const attempt = () => src.transaction(async (tx) => {
    await tx.script(MOVE_SETTINGS);
    lockedAt = performance.now();
    // The show's sale lock first, exclusively: every claim takes it shared before it
    // locks a seat (claim_seats, claim_best_seats), so this waits for the claims under
    // way to end and queues the next ones behind the move. Without it a claim holding
    // one seat while waiting for the next one, which the first pass below had taken,
    // deadlocked with the second pass: on a loaded machine five attempts in a row lost.
    // Then seats. One sweep in seat order (the order every seat move locks in,
    // docs/locking.md) is overtaken by seat moves that keep locking seats ahead of it,
    // and waits for each: on a selling show it took seconds. So every seat nobody holds
    // is locked at once (skip locked), then, in seat order, the few that other seat
    // moves in flight (payment, release, confirm) held. One of those holding a seat
    // while waiting for one of ours would deadlock with the second pass; its short
    // lock_timeout ends the attempt instead, and the move tries again (attempts below),
    // with nothing copied yet.
    const locked = await step('lock', async () => {
      let t = performance.now();
      await lockShowSale(tx, showId);
      steps.saleLock = Math.round(performance.now() - t);
      t = performance.now();
      const free = await tx.query<{ n: number }>(
        'select count(*)::int as n from (select 1 from show_seats t where t.show_id = $1 for update of t skip locked) l', [showId]);
      steps.lockFirstPass = Math.round(performance.now() - t);
      steps.lockedAtOnce = free.rows[0]!.n;
      const all = await tx.query<{ n: number }>('select count(*)::int as n from show_seats t where t.show_id = $1', [showId]);
      // Nothing was skipped (no claim in flight): every seat is ours already.
      if (all.rows[0]!.n === free.rows[0]!.n) return all;
      await tx.query(`set local lock_timeout = '${SECOND_PASS_LOCK_TIMEOUT_MS}ms'`);
      const second = await tx.query<{ n: number }>(
        'select count(*)::int as n from (select 1 from show_seats t where t.show_id = $1 order by t.seat_id for update of t) l', [showId]);
      await tx.query("set local lock_timeout = '2s'");
      return second;
    });
    if (locked.rows[0]!.n === 0) throw new ShowMoveError('nothing_to_move', `show ${showId} has no seats on the source`);
    // The show's changes committed before the locks are published here, by the source's
    // own publisher (outside this transaction, waiting for a pass in progress). With
    // every seat locked no new change of the show can commit, so afterwards no pass on
    // the source gives the show another version: the map version read below is the
    // source's last, and the target's next one is above it. Taking the changes along
    // unpublished instead raced with a pass in progress, which could publish them on
    // the source under version N+1 after the copy had read N: the target then gave its
    // own next changes N+1 too, and viewers skipped them as seen.
    await step('publish', async () => {
      for (let pass = 0; pass < PUBLISH_PASSES; pass++) {
        const pending = await tx.query('select 1 from seat_changes where show_id = $1 limit 1', [showId]);
        if (pending.rowCount === 0) return;
        await publishSeatChanges(src, { limit: PUBLISH_LIMIT, keepSeconds: null, wait: true });
      }
    });
    const map = await tx.query<{ map_version: number }>('select map_version from shows where id = $1', [showId]);
    const taken: { t: PerShow; rows: string; copy: TableCopy }[] = [];
    let maxVersion = 0;
    for (const t of [...TABLES].reverse()) {
      const r = await step(t.table, () => tx.query<{ rows: string; n: number; sum: string; v: number | null }>(
        `with d as (${t.remove})
         select coalesce(array_agg(d), '{}')::text as rows, ${summary(t, 'd')},
                ${t.table === 'show_seats' ? 'max(d.version)' : 'null::bigint'} as v from d`,
        [showId],
      ));
      const row = r.rows[0]!;
      if (t.table === 'show_seats') maxVersion = row.v ?? 0;
      taken.unshift({ t, rows: row.rows, copy: { rows: row.n, sum: row.sum } });
    }
    const tables = Object.fromEntries(taken.map((x) => [x.t.table, x.copy]));

    const t0 = performance.now();
    await dst.transaction(async (ttx) => {
      await ttx.script(MOVE_SETTINGS);
      const show = await ttx.query('select 1 from shows where id = $1 for update', [showId]);
      if (show.rowCount === 0) throw new ShowMoveError('show_not_on_target', `show ${showId} has no catalog row on the target`);
      for (const { t, rows } of taken) {
        const before = await ttx.query<{ n: number }>(`select count(*)::int as n from ${t.from}`, [showId]);
        if (before.rows[0]!.n > 0) throw new ShowMoveError('target_not_empty', `the target already holds ${t.table} rows of show ${showId}`, [t.table]);
        await ttx.query(t.insert, [rows]);
      }
      // Versions only grow for viewers: the target's next version is above every copied one.
      await ttx.query(
        `select setval('seat_version_seq', greatest((select last_value from seat_version_seq), $1::bigint))`, [maxVersion],
      );
      await ttx.query('update shows set map_version = greatest(map_version, $2::bigint) where id = $1', [showId, map.rows[0]?.map_version ?? 0]);
      await ttx.query('delete from shows_moved_away where show_id = $1', [showId]);
      const differ: string[] = [];
      for (const { t, copy } of taken) {
        const r = await ttx.query<{ n: number; sum: string }>(`select ${summary(t, 't')} from ${t.from}`, [showId]);
        if (r.rows[0]!.n !== copy.rows || r.rows[0]!.sum !== copy.sum) differ.push(t.table);
      }
      if (differ.length > 0) throw new ShowMoveError('checksum_mismatch', `show ${showId}: the target's rows differ from the source's in ${differ.join(', ')}`, differ);
    });
    committedTarget = true;
    targetMs = performance.now() - t0;
    const result = { showId, tables, maxVersion, targetMs };
    const t1 = performance.now();
    try {
      await onCopied(result);
      flipped = true;
    } finally {
      onCopiedMs = performance.now() - t1;
    }
    await tx.query(
      'insert into shows_moved_away (show_id) values ($1) on conflict (show_id) do update set moved_at = clock_timestamp()', [showId],
    );
    return result;
  });
  let copied: Awaited<ReturnType<typeof attempt>> | undefined;
  for (let n = 1; copied === undefined; n++) {
    copied = await attempt().catch(async (err: unknown) => {
      // Lost a lock race before anything was copied: nothing happened, try again.
      if (!committedTarget && n < LOCK_ATTEMPTS && LOCK_RACE.has((err as { code?: string }).code ?? '')) {
        steps.lockRetries = n;
        return undefined;
      }
      // The source rolled back, or its commit's answer was lost. Before the flip the
      // placement names the source: a copy the target committed goes. After it, it
      // names the target: the source's rows go (nothing, if its commit did land). A
      // removal that fails too leaves the copy for the caller's removeShowCopy().
      if (flipped) await removeShowCopy(source, showId).catch(() => {});
      else if (committedTarget) await removeShowCopy(target, showId).catch(() => {});
      throw err;
    });
  }
  return { ...copied, pausedMs: performance.now() - lockedAt, onCopiedMs, steps };
}

/** Publish passes the move runs before it copies (each publishes up to PUBLISH_LIMIT changes, oldest first, of every show). */
const PUBLISH_PASSES = 20;
const PUBLISH_LIMIT = 5000;
/** How many times the source's locks are tried; how long the second pass waits for one seat. */
const LOCK_ATTEMPTS = 5;
const SECOND_PASS_LOCK_TIMEOUT_MS = 300;
/** lock_not_available, deadlock_detected. */
const LOCK_RACE = new Set(['55P03', '40P01']);

/**
 * Deletes every per-show row of the show from `db`, the side its placement does not
 * name (a copy left by a crash or a failed flip), and marks it moved away there.
 * Returns the rows deleted per table. Never call it on the placed side.
 */
export async function removeShowCopy(db: Database, showId: string): Promise<Record<string, number>> {
  return db.as('show_move').transaction(async (tx) => {
    await tx.script(MOVE_SETTINGS);
    await tx.query('select count(*) from (select 1 from show_seats t where t.show_id = $1 order by t.seat_id for update of t) l', [showId]);
    const removed: Record<string, number> = {};
    for (const t of [...TABLES].reverse()) removed[t.table] = (await tx.query(t.remove, [showId])).rowCount;
    await tx.query(
      'insert into shows_moved_away (show_id) values ($1) on conflict (show_id) do update set moved_at = clock_timestamp()', [showId],
    );
    return removed;
  });
}

/** Whether the show's inventory left this database (a claim that found its seats gone asks). */
export async function movedAway(db: Queryable, showId: string): Promise<boolean> {
  const r = await db.query('select 1 from shows_moved_away where show_id = $1', [showId]);
  return r.rowCount > 0;
}
