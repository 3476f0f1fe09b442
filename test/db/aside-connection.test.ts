// The connection kept aside from the pool (the show rules' refresh reads through
// it): on the real PostgreSQL, with every pooled connection busy and statements
// queued for them, a read aside answers at once, not after the queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { metered, TripLedger } from '../../src/db/trips.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

describe('the connection aside from the pool', () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = connectPostgres(database.url, 2);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('answers while the pool is full and queued', async () => {
    const busy = Array.from({ length: 6 }, () => db.query('select pg_sleep(0.4)'));
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
