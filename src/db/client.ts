// The storage port: PostgreSQL through `pg` in production, PGlite (the same engine
// in WebAssembly) when no DATABASE_URL is given. Both speak the same SQL.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { BusyClock } from './busyClock.js';
import { ConnectionWaits } from './connectionWaits.js';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
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
  /** How long one use of a connection takes lately (BusyClock.turnMs); null before any use ended. */
  turnMs: number | null;
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
   * they guard, they would wait as long as the holds do under an on-sale's load, and
   * every request would wait for them. PGlite has one connection: the same one.
   */
  aside(): Queryable;
}

// Counts and money are int8 in SQL; they stay far below 2^53, so numbers are safe.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/**
 * How long the database may keep us waiting. A server that drops packets answers
 * nothing at all: without a bound of our own, a request waited for the kernel's
 * TCP timeout (minutes), and a full pool queued every other request behind it.
 */
export interface DbBounds {
  /**
   * Opening a connection; and waiting in the pool's queue for a free one while the
   * database has lately left statements or connections unanswered (./connectionWaits.ts).
   */
  connectMs: number;
  /** Waiting in the pool's queue for a free connection while the database answers. */
  queueMs: number;
  /** A request path statement: PostgreSQL cancels it (statement_timeout), and we stop waiting CLIENT_MARGIN_MS later. */
  statementMs: number;
  /** A background transaction's statements (sweeper, workers, seat feed): nobody waits on them. */
  backgroundStatementMs: number;
}

export const DEFAULT_BOUNDS: Readonly<DbBounds> = Object.freeze({ connectMs: 1500, queueMs: 3000, statementMs: 1200, backgroundStatementMs: 10_000 });

/**
 * The client gives up this long after PostgreSQL would have cancelled the statement:
 * a slow statement is cancelled by the server first and its connection stays usable;
 * only a server that does not answer at all reaches this bound, and then the
 * connection is destroyed (its answer, if it ever comes, would go to the next user).
 */
const CLIENT_MARGIN_MS = 300;

/** Origins whose transactions are the request path's (src/db/trips.ts names them); `startup` runs migrations, unbounded. */
const REQUEST_ORIGINS = new Set(['request', 'payment_webhooks']);

function txSettings(statementMs: number): string {
  return `set local lock_timeout = '2s'; set local statement_timeout = ${statementMs}`;
}
const TX_SETTINGS = txSettings(10_000);

/** The errors after which a connection may still have an answer on its way: it must not serve anyone again. */
function connectionSuspect(err: unknown): boolean {
  const message = (err as Error | null)?.message ?? '';
  return message === 'Query read timeout' || message.startsWith('Connection terminated') || message.startsWith('Client has encountered a connection error')
    || typeof (err as { errno?: unknown } | null)?.errno === 'number';
}

/**
 * A statement with parameters goes as a named prepared statement (named by its
 * text's digest), so each connection parses and plans it once rather than on every
 * execution; our statements are few and fixed, and the claim, the booking's two
 * statements and the map reads are long enough that planning them again each time
 * cost PostgreSQL more than running them.
 */
const names = new Map<string, string>();
type Statement = pg.QueryConfig & { query_timeout?: number };

function prepared(text: string, params: readonly unknown[] | undefined, prepare: boolean, timeoutMs: number): Statement {
  // pg's query_timeout: 0 (startup's migrations) means none.
  const bound = timeoutMs > 0 ? { query_timeout: timeoutMs } : {};
  if (!params || params.length === 0) return { text, ...bound };
  if (!prepare) return { text, values: params as unknown[], ...bound };
  let name = names.get(text);
  if (!name) names.set(text, (name = `bo_${createHash('sha1').update(text).digest('base64url')}`));
  return { name, text, values: params as unknown[], ...bound };
}

/** Statements through whatever runs them (the pool, one checked-out client, the connection aside), each waited for at most timeoutMs. */
function through(run: (q: Statement) => Promise<pg.QueryResult>, prepare: boolean, timeoutMs: number): Queryable {
  return {
    async query<R>(text: string, params?: readonly unknown[]) {
      const r = await run(prepared(text, params, prepare, timeoutMs));
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    },
    async script(sql: string) {
      await run(prepared(sql, undefined, prepare, timeoutMs));
    },
  };
}

/**
 * `prepare: false` (DB_PREPARED_STATEMENTS=0) sends every statement unnamed: for a
 * connection pooler that cannot keep a session's prepared statements (PgBouncer in
 * transaction mode before 1.21, or without max_prepared_statements).
 */
export function connectPostgres(url: string, poolSize: number, prepare = true, bounds: Readonly<DbBounds> = DEFAULT_BOUNDS): Database {
  const options: pg.PoolConfig = {
    connectionString: url,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: bounds.connectMs,
    // Every statement outside a transaction (the claim, the booking's statements, the
    // map reads) is cancelled by PostgreSQL past the request path's bound; transactions
    // set their own (txSettings). This is sent at connection start: no round trip.
    statement_timeout: bounds.statementMs,
    // A transaction whose client vanished (destroyed here after a timeout, while the
    // server never heard) would keep its row locks until the server's TCP keepalive
    // gives up, hours later. Nothing of ours idles inside a transaction longer than
    // one background statement's bound.
    idle_in_transaction_session_timeout: bounds.backgroundStatementMs,
    // A peer gone without a word (a dropped route, a dead host) is found by the kernel
    // instead of holding an idle connection open for hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  // The pool's own bound is the longest wait; ConnectionWaits cuts it short while the database is silent.
  const pool = new pg.Pool({ ...options, max: poolSize, connectionTimeoutMillis: Math.max(bounds.queueMs, bounds.connectMs) });
  const waits = new ConnectionWaits(bounds.connectMs, bounds.queueMs);
  /** A statement on a connection of the pool; one left unanswered costs the connection and shortens every wait. */
  const onPool = async (q: Statement): Promise<pg.QueryResult> => {
    const client = await waits.acquire(pool, poolSize);
    try {
      const r = await client.query(q);
      client.release();
      return r;
    } catch (err) {
      if (connectionSuspect(err)) waits.silence();
      client.release(connectionSuspect(err) ? (err as Error) : undefined);
      throw err;
    }
  };
  // An idle client losing its connection must not crash the process (pg-pool tells the
  // pool); nor may one lent out, between two statements of a transaction: pg emits
  // 'error' on it, with no listener of pg-pool's while it is lent. Its statements fail
  // with the error, and the transaction gives the connection back as broken.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // Opened on first use; one connection, so its reads queue only behind each other.
  let asidePool: pg.Pool | null = null;
  const requestWaitMs = bounds.statementMs + CLIENT_MARGIN_MS;
  const aside = through((q) => {
    if (!asidePool) {
      asidePool = new pg.Pool({ ...options, max: 1 });
      asidePool.on('error', () => {});
      asidePool.on('connect', (client) => client.on('error', () => {}));
    }
    return asidePool.query(q);
  }, prepare, requestWaitMs);
  const busy = new BusyClock();
  const takenAt = new WeakMap<pg.PoolClient, number>();
  pool.on('acquire', (client) => takenAt.set(client, busy.start()));
  pool.on('release', (_err, client) => {
    const at = takenAt.get(client);
    if (at !== undefined) busy.stop(at);
    takenAt.delete(client);
  });
  // A client whose statement failed with a connection error goes back as broken (the
  // pool destroys it); one whose statement PostgreSQL refused or cancelled is kept.
  const view = (origin: string): Database => {
    const txMs = origin === 'startup' ? 0 : REQUEST_ORIGINS.has(origin) ? bounds.statementMs : bounds.backgroundStatementMs;
    const txWaitMs = txMs === 0 ? 0 : txMs + CLIENT_MARGIN_MS;
    const db: Database = {
      kind: 'postgres',
      ...through(onPool, prepare, origin === 'startup' ? 0 : requestWaitMs),
      async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
        const client = await waits.acquire(pool, poolSize);
        let broken: unknown = null;
        try {
          await client.query(prepared(`begin; ${txSettings(txMs)}`, undefined, prepare, txWaitMs));
          const result = await fn(through((q) => client.query(q), prepare, txWaitMs));
          await client.query(prepared('commit', undefined, prepare, txWaitMs));
          return result;
        } catch (err) {
          if (connectionSuspect(err)) {
            broken = err;
            waits.silence();
          }
          // Bounded like any statement; a rollback that fails leaves the connection in doubt.
          else await client.query(prepared('rollback', undefined, prepare, requestWaitMs)).catch((e: unknown) => { broken = e; });
          throw err;
        } finally {
          client.release(broken instanceof Error ? broken : broken === null ? undefined : true);
        }
      },
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, size: poolSize, busyMs: busy.busyMs(), turnMs: busy.turnMs() }),
      close: async () => {
        await Promise.all([pool.end(), asidePool?.end()]);
      },
      as: (other: string) => (other === origin ? db : view(other)),
      aside: () => aside,
    };
    return db;
  };
  return view('request');
}

/** The embedded database, which can also hand over an image of itself. */
export interface EmbeddedDatabase extends Database {
  /** Its data directory as a tarball (PGlite's dumpDataDir): openPglite(null, image) starts a copy in memory. */
  image(): Promise<Blob>;
}

/**
 * PGlite in `dataDir`, or in memory when null: empty, or a copy of `image` (a data
 * directory another one handed over: starting from it skips initdb, about 3 s of
 * the ~4 s a fresh one takes here).
 */
export async function openPglite(dataDir: string | null, image?: Blob): Promise<EmbeddedDatabase> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  const db = await PGlite.create(dataDir ?? undefined, {
    parsers: { [pgliteTypes.INT8]: (v: string) => Number(v) },
    // The contrib extensions the migrations create (PGlite bundles each separately).
    extensions: { fuzzystrmatch },
    ...(image && !dataDir ? { loadDataDir: image } : {}),
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
  const embedded: EmbeddedDatabase = {
    kind: 'pglite',
    image: () => db.dumpDataDir('none'),
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
    // PGlite is one embedded connection: busy or idle; its busy periods (first statement in
    // to last out) are no turns of one use.
    poolStats: () => ({ total: 1, idle: active === 0 ? 1 : 0, waiting: Math.max(0, active - 1), size: 1, busyMs: busy.busyMs(), turnMs: null }),
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

export async function openDatabase(opts: { url: string | null; dataDir: string | null; poolSize: number; preparedStatements?: boolean; bounds?: Readonly<DbBounds> }): Promise<Database> {
  return opts.url ? connectPostgres(opts.url, opts.poolSize, opts.preparedStatements ?? true, opts.bounds) : openPglite(opts.dataDir);
}
