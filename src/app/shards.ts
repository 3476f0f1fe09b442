// Shards by show (docs/scale-out.md): every show's inventory on one of several
// PostgreSQL databases, found through the placement directory on the control
// database. Each instance caches placements and reads the ones it holds again every
// PLACEMENT_REFRESH_MS, so a moved show is followed without a restart; while the
// control database does not answer, cached placements keep their shows selling.
import type { Database, Queryable } from '../db/client.js';
import { databaseAway } from '../db/sqlstate.js';
import { findPlacement, findPlacements, holdsRecord, type Placement } from '../db/placement.js';
import { movedAway } from '../db/showMove.js';
import { DomainError, notFound } from '../domain/errors.js';
import { showOfId } from '../domain/ids.js';
import { Loop, type Log } from '../loop.js';
import type { Inventory } from './inventory.js';

/** A shard that does not answer: only its shows answer 503 SHARD_UNAVAILABLE. */
export function shardUnavailable(shard: string, cause: unknown): DomainError {
  return Object.assign(
    new DomainError('SHARD_UNAVAILABLE', `the database holding this show's seats does not answer; other shows are not affected; try again shortly`, { retry_after: 2, shard }),
    { cause },
  );
}

/** The shard's database with "away" failures (unreachable, silent, shutting down) turned into SHARD_UNAVAILABLE naming it. */
export function guardShard(name: string, db: Database): Database {
  const fail = (err: unknown): never => {
    throw databaseAway(err) ? shardUnavailable(name, err) : err;
  };
  const guardQueryable = (q: Queryable): Queryable => ({
    query: <R>(text: string, params?: readonly unknown[]) => q.query<R>(text, params).catch(fail),
    script: (sql) => q.script(sql).catch(fail),
  });
  let aside: Queryable | null = null;
  const views = new Map<string, Database>();
  return {
    kind: db.kind,
    ...guardQueryable(db),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction(fn).catch(fail),
    poolStats: () => db.poolStats(),
    close: () => db.close(),
    as(origin) {
      let view = views.get(origin);
      if (!view) views.set(origin, (view = guardShard(name, db.as(origin))));
      return view;
    },
    aside: () => (aside ??= guardQueryable(db.aside())),
  };
}

const MAX_CACHED = 50_000;
const MAX_OLD_IDS = 10_000;

/** What every view of the sharded inventory shares: the control database, the shards, the placement cache. */
class Placements {
  readonly cache = new Map<string, Placement>();
  /** Old-style ids (made before ids named their show) found by asking each shard: id → shard. */
  readonly oldIds = new Map<string, string>();
  readonly loop: Loop;

  constructor(readonly control: Database, refreshMs: number, log: Log) {
    this.loop = new Loop('placements', () => this.refresh(), refreshMs, log);
  }

  /** Told when a cached placement is read again with another shard (the show moved). */
  readonly movedListeners = new Set<(showId: string) => void>();

  private keep(showId: string, p: Placement): void {
    const was = this.cache.get(showId);
    this.cache.set(showId, p);
    if (was && was.shard !== p.shard) for (const l of this.movedListeners) l(showId);
  }

  async get(showId: string): Promise<Placement | null> {
    const known = this.cache.get(showId);
    if (known) return known;
    return this.read(showId);
  }

  /** The show's placement from the control database, cached. */
  async read(showId: string): Promise<Placement | null> {
    const p = await findPlacement(this.control, showId);
    if (p) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.keep(showId, p);
    } else this.cache.delete(showId);
    return p;
  }

  /** Every cached placement read again, in one statement; while the control database does not answer, the cache stays. */
  private async refresh(): Promise<void> {
    if (this.cache.size === 0) return;
    const ids = [...this.cache.keys()];
    const fresh = new Map((await findPlacements(this.control, ids)).map((p) => [p.show_id, p]));
    for (const id of ids) {
      const p = fresh.get(id);
      if (p) this.keep(id, p);
      else this.cache.delete(id);
    }
  }
}

/** The inventory of shows spread over shards; `as(origin)` views share one placement cache. */
export class ShardedInventory implements Inventory {
  readonly single = false;
  private readonly byName: Map<string, Database>;
  private readonly views = new Map<string, ShardedInventory>();

  private constructor(private readonly placements: Placements, private readonly shards: readonly { name: string; db: Database }[]) {
    this.byName = new Map(shards.map((s) => [s.name, s.db]));
  }

  /** `shards`: each shard's database (opened by the caller, guarded here). */
  static open(control: Database, shards: readonly { name: string; db: Database }[], refreshMs: number, log: Log): ShardedInventory {
    return new ShardedInventory(new Placements(control, refreshMs, log), shards.map((s) => ({ name: s.name, db: guardShard(s.name, s.db) })));
  }

  /** Starts following placement changes (every PLACEMENT_REFRESH_MS). */
  start(): void {
    this.placements.loop.start();
  }

  stop(): Promise<void> {
    return this.placements.loop.stop();
  }

  /** One refresh of the cached placements now (tests). */
  refreshNow(): Promise<void> {
    return this.placements.loop.runOnce();
  }

  async ofShow(showId: string, o: { purchase?: boolean } = {}): Promise<Database> {
    const p = await this.placements.get(showId);
    if (!p) throw notFound('show');
    return this.placed(p, o);
  }

  private placed(p: Placement, o: { purchase?: boolean }): Database {
    if (o.purchase && p.state === 'moving') {
      throw new DomainError('OVERLOADED', 'this show is moving to another shard; its seats can be bought again in a moment', { retry_after: 2 });
    }
    const db = this.byName.get(p.shard);
    if (!db) throw new Error(`show ${p.show_id} is placed on shard "${p.shard}", which SHARD_URLS does not name`);
    return db;
  }

  async ofRecord(id: string, o: { purchase?: boolean } = {}): Promise<Database> {
    const showId = showOfId(id);
    if (showId) return this.ofShow(showId, o);
    // An id made before ids named their show: ask each shard, once per id.
    const known = this.placements.oldIds.get(id);
    if (known && this.byName.has(known)) return this.byName.get(known)!;
    const found = await Promise.all(this.shards.map(async (s) => ((await holdsRecord(s.db, id)) ? s.name : null)));
    const name = found.find((n) => n !== null);
    if (!name) return this.shards[0]!.db; // nowhere: the look-up there finds nothing either
    if (this.placements.oldIds.size >= MAX_OLD_IDS) this.placements.oldIds.clear();
    this.placements.oldIds.set(id, name);
    return this.byName.get(name)!;
  }

  async findRecord<T>(id: string, look: (db: Database) => Promise<T | null>): Promise<{ db: Database; found: T | null }> {
    const db = await this.ofRecord(id);
    const found = await look(db);
    const showId = showOfId(id);
    // Not there: a stale placement (the show moved away meanwhile) is the one reason to look further.
    const now = found === null && showId ? await this.movedAwayFrom(showId, db) : null;
    return now ? { db: now, found: await look(now) } : { db, found };
  }

  all(): readonly Database[] {
    return this.shards.map((s) => s.db);
  }

  named(): readonly { name: string; db: Database }[] {
    return this.shards;
  }

  as(origin: string): Inventory {
    let view = this.views.get(origin);
    if (!view) {
      view = new ShardedInventory(this.placements, this.shards.map((s) => ({ name: s.name, db: s.db.as(origin) })));
      this.views.set(origin, view);
    }
    return view;
  }

  async moved(showId: string, tried: Database): Promise<Database | null> {
    const now = await this.placements.read(showId);
    if (!now) return null;
    const db = this.placed(now, { purchase: true });
    return db === tried ? null : db;
  }

  /**
   * The show's database for a read that would otherwise misread a move: where the
   * cached placement points, unless the show left a `shows_moved_away` mark there (this
   * instance's placement is stale), then the placement read afresh (which also resyncs
   * the show's streams). A seat map read on the old shard would show every seat free.
   */
  async ofShowFollowingMove(showId: string): Promise<Database> {
    const db = await this.ofShow(showId);
    return (await this.movedAwayFrom(showId, db)) ?? db;
  }

  /**
   * The show's database now, when it left a `shows_moved_away` mark on `db` (where this
   * instance's placement pointed) and its placement read afresh names another; else null.
   */
  private async movedAwayFrom(showId: string, db: Database): Promise<Database | null> {
    if (!(await movedAway(db, showId))) return null;
    return this.moved(showId, db).catch(() => null);
  }

  async follow(showId: string): Promise<void> {
    await this.placements.read(showId);
  }

  /**
   * Calls `listener` with a show's id when this instance learns that the show is on
   * another shard than it had cached (a refresh, or a claim that found it gone). The
   * seat map streams resync its viewers then (src/service.ts). Returns the unsubscribe.
   */
  onMoved(listener: (showId: string) => void): () => void {
    this.placements.movedListeners.add(listener);
    return () => this.placements.movedListeners.delete(listener);
  }

  /** The placement as this instance knows it (cached), or null when the show has none. */
  placementOf(showId: string): Promise<Placement | null> {
    return this.placements.get(showId);
  }
}
