// One instance's view of the seat change feed (docs/live-map.md): every interval
// it publishes committed changes (whichever instance gets there first does it for
// all) and reads the published batches after its cursor, turns them into deltas,
// keeps the last few per show for resumes, and hands them to its listeners.
// Every instance reads the same batches with the same versions.
import type { Database } from '../db/client.js';
import { lastPublishedBatch, publishSeatChanges, publishedDeltas } from '../db/seatChanges.js';
import type { LiveMapSettings } from '../config.js';
import { Loop, type Log } from '../loop.js';
import { DeltaBuffer, type Delta } from './deltas.js';
import type { LiveMetrics } from './liveMetrics.js';

/** The most changes one pass publishes (exported so a test can pend more than that). */
export const PUBLISH_LIMIT = 5000;
const BATCHES_PER_READ = 50;
const MAX_SHOWS = 2000;

export interface FeedListener {
  /** Deltas of one show, consecutive versions, after they entered the show's buffer. */
  deltas(showId: string, deltas: readonly Delta[]): void;
  /** Batches were lost (this instance fell behind retention): every buffer was emptied. */
  resync(): void;
}

export class SeatFeed {
  private readonly loop: Loop;
  private readonly buffers = new Map<string, DeltaBuffer>();
  private readonly listeners = new Set<FeedListener>();
  /** Per inventory database (each shard has its own feed, sequenced on its own): the last batch read. */
  private readonly cursors: (number | null)[];
  private readonly dbs: readonly Database[];

  /** `db`: the inventory database, or every one (each shard's feed is read after its own cursor). */
  constructor(db: Database | readonly Database[], private readonly settings: LiveMapSettings, private readonly metrics: LiveMetrics, log: Log) {
    this.dbs = Array.isArray(db) ? db : [db as Database];
    this.cursors = this.dbs.map(() => null);
    // Fixed rate: a change waits for the next pass's start, not for the pass before plus an interval.
    this.loop = new Loop('seat-feed', () => this.pass(), settings.feedIntervalMs, log, { fixedRate: true });
  }

  async start(): Promise<void> {
    // A shard that does not answer now is read from its next batch on, once it does (read()).
    await Promise.all(this.dbs.map(async (db, i) => {
      this.cursors[i] ??= await lastPublishedBatch(db).catch(() => null);
    }));
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A publish and read pass now (tests; the loop does the same every interval). */
  runOnce(): Promise<void> {
    return this.loop.runOnce();
  }

  /** Returns once a pass that started after this call has read what was published (a pass in progress may have read before). */
  async catchUp(): Promise<void> {
    await this.loop.runOnce();
    await this.loop.runOnce();
  }

  listen(l: FeedListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** The show's recent deltas, when this instance has seen any since it started. */
  buffer(showId: string): DeltaBuffer | undefined {
    return this.buffers.get(showId);
  }

  /** Every shard's feed side by side: one that does not answer holds up no other (its failure is the pass's, logged by the loop). */
  private async pass(): Promise<void> {
    const failed = (await Promise.allSettled(this.dbs.map((db, i) => this.passOn(db, i)))).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  private async passOn(db: Database, i: number): Promise<void> {
    const p = await publishSeatChanges(db, { limit: PUBLISH_LIMIT, keepSeconds: this.settings.feedRetentionSeconds, wait: false });
    if (p.batch !== null) this.metrics.published.inc(p.changes);
    await this.read(db, i);
  }

  private async read(db: Database, i: number): Promise<void> {
    // A shard that did not answer at start: its feed is read from its next batch on.
    if (this.cursors[i] === null) this.cursors[i] = await lastPublishedBatch(db);
    for (;;) {
      const cursor = this.cursors[i]!;
      const { head, deltas: rows } = await publishedDeltas(db, cursor, BATCHES_PER_READ);
      if (rows.length === 0) {
        // Batches published but without deltas: skipped after a server restart (changes may be lost) or deleted.
        if (head > cursor) {
          this.cursors[i] = head;
          this.resync();
        }
        return;
      }
      const first = rows[0]!.published_seq;
      if (first !== cursor + 1) this.resync();
      const last = rows.at(-1)!.published_seq;
      this.cursors[i] = last;
      this.metrics.lag.observe(Math.max(...rows.map((r) => r.lag_seconds)));
      this.deliver(rows.map((r) => ({ show_id: r.show_id, version: r.map_version, changes: r.changes })));
      if (last - first + 1 < BATCHES_PER_READ) return;
    }
  }

  /** Deltas in batch order; each run of one show's deltas goes to its buffer, then to the listeners. */
  private deliver(deltas: Delta[]): void {
    let i = 0;
    while (i < deltas.length) {
      const showId = deltas[i]!.show_id;
      let j = i;
      while (j < deltas.length && deltas[j]!.show_id === showId) j++;
      const ofShow = deltas.slice(i, j);
      i = j;
      let buffer = this.buffers.get(showId);
      if (buffer) this.buffers.delete(showId); // re-inserted last: the map's order is least recently changed first
      else {
        buffer = new DeltaBuffer(this.settings.bufferDeltas);
        if (this.buffers.size >= MAX_SHOWS) this.buffers.delete(this.buffers.keys().next().value!);
      }
      this.buffers.set(showId, buffer);
      for (const d of ofShow) buffer.push(d);
      for (const l of this.listeners) l.deltas(showId, ofShow);
    }
  }

  private resync(): void {
    this.buffers.clear();
    this.metrics.gaps.inc();
    for (const l of this.listeners) l.resync();
  }
}
