// The storage port: PostgreSQL through `pg` in production, PGlite (the same engine
// in WebAssembly) when no DATABASE_URL is given. Both speak the same SQL.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { BusyClock } from './busyClock.js';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { lockDataDir } from './dataDirLock.js';
import { mkdirSync } from 'node:fs';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs several statements without parameters (migrations, settings). */
  script(sql: string): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  /** How many connections the pool may open. */
  size: number;
  /** Connection-milliseconds spent in use since the pool opened (BusyClock). */
  busyMs: number;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction with short lock and statement timeouts; rolls back on throw. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
  /** The same database with its statements counted under `origin` (src/db/trips.ts); uncounted here, so itself. */
  as(origin: string): Database;
  /**
   * A connection of its own, outside the pool, for the few small reads that keep the
   * purchase path's in-memory copies fresh (the show rules): queued behind the holds
   * they guard, they took a second under an on-sale's load, and every request waited
   * for them. PGlite has one connection: the same one.
   */
  aside(): Queryable;
}

// Counts and money are int8 in SQL; they stay far below 2^53, so numbers are safe.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

const TX_SETTINGS = "set local lock_timeout = '2s'; set local statement_timeout = '10s'";

/**
 * A statement with parameters goes as a named prepared statement (named by its
 * text's digest), so each connection parses and plans it once rather than on every
 * execution; our statements are few and fixed, and the claim, the booking's two
 * statements and the map reads are long enough that planning them again each time
 * cost PostgreSQL more than running them.
 */
const names = new Map<string, string>();
function prepared(text: string, params: readonly unknown[] | undefined, prepare: boolean): pg.QueryConfig | string {
  if (!params || params.length === 0) return text;
  if (!prepare) return { text, values: params as unknown[] };
  let name = names.get(text);
  if (!name) names.set(text, (name = `bo_${createHash('sha1').update(text).digest('base64url')}`));
  return { name, text, values: params as unknown[] };
}

/** Statements through whatever runs them (the pool, one checked-out client, the connection aside). */
function through(run: (q: pg.QueryConfig | string) => Promise<pg.QueryResult>, prepare: boolean): Queryable {
  return {
    async query<R>(text: string, params?: readonly unknown[]) {
      const r = await run(prepared(text, params, prepare));
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    },
    async script(sql: string) {
      await run(sql);
    },
  };
}

/**
 * `prepare: false` (DB_PREPARED_STATEMENTS=0) sends every statement unnamed: for a
 * connection pooler that cannot keep a session's prepared statements (PgBouncer in
 * transaction mode before 1.21, or without max_prepared_statements).
 */
export function connectPostgres(url: string, poolSize: number, prepare = true): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  // Opened on first use; one connection, so its reads queue only behind each other.
  let asidePool: pg.Pool | null = null;
  const aside = through((q) => {
    if (!asidePool) {
      asidePool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 30_000 });
      asidePool.on('error', () => {});
    }
    return asidePool.query(q);
  }, prepare);
  const busy = new BusyClock();
  const takenAt = new WeakMap<pg.PoolClient, number>();
  pool.on('acquire', (client) => takenAt.set(client, busy.start()));
  pool.on('release', (_err, client) => {
    const at = takenAt.get(client);
    if (at !== undefined) busy.stop(at);
    takenAt.delete(client);
  });
  const db: Database = {
    kind: 'postgres',
    ...through((q) => pool.query(q), prepare),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query(`begin; ${TX_SETTINGS}`);
        const result = await fn(through((q) => client.query(q), prepare));
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, size: poolSize, busyMs: busy.busyMs() }),
    close: async () => {
      await Promise.all([pool.end(), asidePool?.end()]);
    },
    as: () => db,
    aside: () => aside,
  };
  return db;
}

export async function openPglite(dataDir: string | null): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  const db = await PGlite.create(dataDir ?? undefined, {
    parsers: { [pgliteTypes.INT8]: (v: string) => Number(v) },
  }).catch((err: unknown) => {
    unlock();
    throw err;
  });
  let active = 0;
  // One connection: busy from the first statement in until the last one out.
  const busy = new BusyClock();
  let busySince = 0;
  const enter = () => { if (active++ === 0) busySince = busy.start(); };
  const leave = () => { if (--active === 0) busy.stop(busySince); };
  const embedded: Database = {
    kind: 'pglite',
    async query<R>(text: string, params?: readonly unknown[]) {
      enter();
      try {
        const r = await db.query<R>(text, params as unknown[] | undefined);
        return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
      } finally {
        leave();
      }
    },
    async script(sql: string) {
      await db.exec(sql);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      enter();
      try {
        return await db.transaction(async (t) => {
          await t.exec(TX_SETTINGS);
          return fn({
            async query<R>(text: string, params?: readonly unknown[]) {
              const r = await t.query<R>(text, params as unknown[] | undefined);
              return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
            },
            async script(sql: string) {
              await t.exec(sql);
            },
          });
        });
      } finally {
        leave();
      }
    },
    // PGlite is one embedded connection: busy or idle.
    poolStats: () => ({ total: 1, idle: active === 0 ? 1 : 0, waiting: Math.max(0, active - 1), size: 1, busyMs: busy.busyMs() }),
    close: async () => {
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
    as: () => embedded,
    aside: () => embedded,
  };
  return embedded;
}

export async function openDatabase(opts: { url: string | null; dataDir: string | null; poolSize: number; preparedStatements?: boolean }): Promise<Database> {
  return opts.url ? connectPostgres(opts.url, opts.poolSize, opts.preparedStatements ?? true) : openPglite(opts.dataDir);
}
