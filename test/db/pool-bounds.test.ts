// The pool's bounds against a PostgreSQL that stops answering (packets dropped by
// test/support/blackholeProxy.ts): a statement, a transaction and its rollback each
// give up within their bound, and the connection they were on never serves anyone
// again. Were it handed back, its late answers would arrive after the database came
// back and the next user's statements would run inside the transaction left open
// (its BEGIN answered, no COMMIT ever sent).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { translateDbError } from '../../src/db/sqlstate.js';
import { DomainError } from '../../src/domain/errors.js';
import { createTestDatabase, ADMIN_URL, type TestDatabase } from '../support/database.js';
import { start as startProxy, type BlackholeProxy } from '../support/blackholeProxy.js';

const BOUNDS = { connectMs: 300, queueMs: 3000, statementMs: 300, backgroundStatementMs: 300 };
/** The statement's bound, the client's margin (300 ms) and some scheduling slack. */
const GIVES_UP_MS = 300 + 300 + 400;

let database: TestDatabase;
let proxy: BlackholeProxy;
let db: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await startProxy(Number(new URL(ADMIN_URL).port || 5432));
  const url = new URL(database.url);
  url.port = String(proxy.port);
  db = connectPostgres(url.toString(), 1, true, BOUNDS);
});
afterEach(async () => {
  await proxy.mode('pass');
});
afterAll(async () => {
  await proxy?.mode('pass');
  await db?.close();
  await proxy?.close();
  await database?.drop();
});

/** Whether the statement ran in a transaction of its own (not inside one left open on its connection). */
async function alone(): Promise<boolean> {
  const r = await db.query<{ alone: boolean }>('select transaction_timestamp() = statement_timestamp() as alone');
  return r.rows[0]!.alone;
}

async function backend(): Promise<number> {
  return (await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
}

async function settles(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const t0 = performance.now();
  const err = await p.then(() => null, (e: unknown) => e);
  return { err, ms: performance.now() - t0 };
}

describe('the bounds PostgreSQL applies itself', () => {
  it('cancels a statement past the request bound, and ends a transaction left idle past the background bound', async () => {
    const r = await db.query<{ statement: string; idle: string }>(
      "select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle");
    expect(r.rows[0]).toEqual({ statement: '300ms', idle: '300ms' });
    const { err } = await settles(db.query('select pg_sleep(1)'));
    expect((err as { code?: string }).code).toBe('57014');
    expect((translateDbError(err) as DomainError).code).toBe('OVERLOADED');
    // Cancelled by the server, the connection is sound and serves the next statement.
    expect(await alone()).toBe(true);
  });
});

describe('a database that stops answering', () => {
  it('fails a statement within its bound, as 503 OVERLOADED, and the next one gets another connection', async () => {
    const before = await backend();
    await proxy.mode('blackhole');
    const { err, ms } = await settles(db.query('select 1'));
    expect(err).toBeInstanceOf(Error);
    expect(ms).toBeLessThan(GIVES_UP_MS);
    const translated = translateDbError(err);
    expect(translated).toBeInstanceOf(DomainError);
    expect((translated as DomainError).code).toBe('OVERLOADED');
    await proxy.mode('pass');
    // The pool's only connection was the one whose statement got no answer: it is gone.
    expect(await backend()).not.toBe(before);
    expect(await alone()).toBe(true);
  });

  it('fails a transaction whose BEGIN gets no answer, and never lends its connection again', async () => {
    expect(await alone()).toBe(true);
    await proxy.mode('blackhole');
    const { err, ms } = await settles(db.transaction(async (tx) => tx.query('select 1')));
    expect((err as Error).message).toBe('Query read timeout');
    expect(ms).toBeLessThan(GIVES_UP_MS);
    await proxy.mode('pass');
    // The BEGIN reached the server; had its connection come back to the pool, this would run inside it.
    expect(await alone()).toBe(true);
  });

  it('bounds the rollback of a transaction that failed while the database went silent', async () => {
    const { err, ms } = await settles(db.transaction(async (tx) => {
      await tx.query('select 1');
      await proxy.mode('blackhole');
      throw new Error('the seats were taken');
    }));
    // The caller gets its own error, not the rollback's, and not after minutes.
    expect((err as Error).message).toBe('the seats were taken');
    expect(ms).toBeLessThan(GIVES_UP_MS);
    await proxy.mode('pass');
    expect(await alone()).toBe(true);
  });

  it('fails waiting for a connection within the connect bound', async () => {
    await db.close();
    const url = new URL(database.url);
    url.port = String(proxy.port);
    db = connectPostgres(url.toString(), 1, true, BOUNDS);
    await proxy.mode('blackhole');
    const { err, ms } = await settles(db.query('select 1'));
    expect(err).toBeInstanceOf(Error);
    expect(ms).toBeLessThan(BOUNDS.connectMs + 400);
    expect((translateDbError(err) as DomainError).code).toBe('OVERLOADED');
    await proxy.mode('pass');
    expect(await alone()).toBe(true);
  });
});

describe('a database that resets its connections', () => {
  it('fails a transaction whose connection is reset between its statements, as 503, without an uncaught error', async () => {
    // pg emits 'error' on a client whose socket fails; one lent out by the pool has no
    // listener of pg-pool's own, and an 'error' nobody listens for ends the process.
    const uncaught: unknown[] = [];
    const catcher = (err: unknown) => { uncaught.push(err); };
    process.prependListener('uncaughtException', catcher);
    try {
      const { err } = await settles(db.transaction(async (tx) => {
        await tx.query('select 1');
        await proxy.mode('refuse');
        await new Promise((res) => setTimeout(res, 200)); // the reset reaches the idle connection
        return tx.query('select 2');
      }));
      expect(err).toBeInstanceOf(Error);
      expect((translateDbError(err) as DomainError).code, String(err)).toBe('OVERLOADED');
      await proxy.mode('pass');
      expect(await alone()).toBe(true);
    } finally {
      process.off('uncaughtException', catcher);
    }
    expect(uncaught.map(String)).toEqual([]);
  });
});

describe('waiting for a connection', () => {
  let own: Database;
  beforeAll(async () => {
    const url = new URL(database.url);
    url.port = String(proxy.port);
    own = connectPostgres(url.toString(), 1, true, BOUNDS);
    await own.query('select 1');
  });
  afterAll(async () => {
    await proxy.mode('pass');
    await own?.close();
  });

  it('queues behind busy connections past the connect bound while the database answers', async () => {
    // Three statements of 250 ms on one connection: the last waits about 500 ms for it.
    const t0 = performance.now();
    const all = await Promise.all([0, 1, 2].map(() => settles(own.query('select pg_sleep(0.25)'))));
    expect(all.map((r) => r.err)).toEqual([null, null, null]);
    expect(performance.now() - t0).toBeGreaterThan(BOUNDS.connectMs + 200);
  });

  it('stops queueing within the connect bound once the database leaves a statement unanswered', async () => {
    await proxy.mode('blackhole');
    const first = settles(own.query('select 1'));
    // Queued behind the first on the pool's one connection, with a queue bound of 3 s.
    const queued = settles(own.query('select 2'));
    const [a, b] = await Promise.all([first, queued]);
    expect(a.err).toBeInstanceOf(Error);
    expect(b.err).toBeInstanceOf(Error);
    // The first gives up at its statement bound; the queued one with it, not 3 s later.
    expect(b.ms).toBeLessThan(GIVES_UP_MS + BOUNDS.connectMs);
    expect((translateDbError(b.err) as DomainError).code).toBe('OVERLOADED');
    await proxy.mode('pass');
    expect((await own.query<{ n: number }>('select 3 as n')).rows[0]!.n).toBe(3);
  });
});
