// The pool's busy time, which the admission controller turns into utilization: on
// the real PostgreSQL, four connections each busy ~200 ms (one in a transaction)
// add up to ~800 ms, idle time adds nothing, and a connection still busy counts so far.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

describe('the database pool\'s busy time', () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = connectPostgres(database.url, 4);
    await db.query('select 1'); // a connection opened before the clock is read
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('adds up the time connections are in use, and only that', async () => {
    const before = db.poolStats().busyMs;
    await Promise.all([
      db.query('select pg_sleep(0.2)'), db.query('select pg_sleep(0.2)'), db.query('select pg_sleep(0.2)'),
      db.transaction(async (tx) => { await tx.query('select pg_sleep(0.2)'); }),
    ]);
    const busy = db.poolStats().busyMs - before;
    expect(busy).toBeGreaterThanOrEqual(800);
    expect(busy).toBeLessThan(1600);
    await new Promise((r) => setTimeout(r, 300));
    expect(db.poolStats().busyMs - before - busy).toBeLessThan(5);
    const running = db.query('select pg_sleep(0.3)');
    await new Promise((r) => setTimeout(r, 150));
    const partway = db.poolStats().busyMs - before - busy;
    expect(partway).toBeGreaterThanOrEqual(100);
    expect(partway).toBeLessThan(300);
    await running;
    expect(db.poolStats()).toMatchObject({ size: 4, waiting: 0 });
  });
});
