// The pool's use, on the real PostgreSQL. Its busy time, which the admission
// controller turns into utilization: four connections each busy ~200 ms (one in a
// transaction) add up to ~800 ms, idle time adds nothing, and a connection still
// busy counts so far. And the connection kept aside from it (the show rules' refresh
// reads through it): with every pooled connection busy and statements queued for
// them, a read aside answers at once, not after the queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { metered, TripLedger } from '../../src/db/trips.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

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

describe('the database pool\'s busy time', () => {
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

describe('the pool\'s turn', () => {
  it('is how long one use of a connection took lately, or the age of the uses still running if longer', async () => {
    for (let i = 0; i < 60; i++) await db.query('select 1');
    const quick = db.poolStats().turnMs!;
    expect(quick).toBeGreaterThan(0);
    expect(quick).toBeLessThan(50);
    // Uses of ~100 ms pull it up.
    for (let i = 0; i < 10; i++) await Promise.all([db.query('select pg_sleep(0.1)'), db.query('select pg_sleep(0.1)')]);
    const slower = db.poolStats().turnMs!;
    expect(slower).toBeGreaterThan(20);
    expect(slower).toBeLessThan(110);
    // Four uses that have not ended (a database that stopped answering): the turn grows with their age.
    const stuck = Array.from({ length: 4 }, () => db.query('select pg_sleep(0.6)'));
    await new Promise((r) => setTimeout(r, 400));
    expect(db.poolStats().turnMs!).toBeGreaterThanOrEqual(350);
    await Promise.all(stuck);
  });
});

describe('the connection aside from the pool', () => {
  it('answers while the pool is full and queued', async () => {
    const busy = Array.from({ length: 12 }, () => db.query('select pg_sleep(0.4)'));
    await new Promise((r) => setTimeout(r, 50));
    expect(db.poolStats().waiting).toBeGreaterThan(0);
    const t0 = performance.now();
    const r = await db.aside().query<{ n: number }>('select $1::int as n', [7]);
    const ms = performance.now() - t0;
    expect(r.rows[0]!.n).toBe(7);
    // The pool's queue takes 1.2 s to drain; the read aside needs no slot of it.
    expect(ms).toBeLessThan(350);
    await Promise.all(busy);
  });

  it('is counted under its origin when metered', async () => {
    const ledger = new TripLedger();
    const rules = metered(db, ledger, 'request').as('show_rules').aside();
    await rules.query('select 1');
    expect(ledger.of('show_rules')).toMatchObject({ roundTrips: 1, commits: 1 });
    expect(ledger.of('request').roundTrips).toBe(0);
  });
});
