// Statements with parameters go as named prepared statements (planned once per
// connection), and DB_PREPARED_STATEMENTS=0 sends them unnamed; either way the
// answers are the same. On the real PostgreSQL, read from pg_prepared_statements
// of the connection that ran them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const preparedHere = (db: Database) => db.transaction(async (tx) => {
  const a = await tx.query<{ x: number }>('select $1::int + 1 as x', [41]);
  const b = await tx.query<{ x: number }>('select $1::int + 1 as x', [1]);
  const seen = await tx.query<{ name: string }>("select name from pg_prepared_statements where statement = 'select $1::int + 1 as x'");
  return { answers: [a.rows[0]!.x, b.rows[0]!.x], names: seen.rows.map((r) => r.name) };
});

describe('prepared statements', () => {
  let database: TestDatabase;
  const dbs: Database[] = [];
  beforeAll(async () => { database = await createTestDatabase(); });
  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.close()));
    await database?.drop();
  });

  it('names a statement with parameters once per connection, and only when asked', async () => {
    const on = connectPostgres(database.url, 1);
    const off = connectPostgres(database.url, 1, false);
    dbs.push(on, off);
    const named = await preparedHere(on);
    expect(named.answers).toEqual([42, 2]);
    expect(named.names).toHaveLength(1);
    expect(named.names[0]).toMatch(/^bo_/);
    const unnamed = await preparedHere(off);
    expect(unnamed).toEqual({ answers: [42, 2], names: [] });
    expect(loadConfig({}).preparedStatements).toBe(true);
    expect(loadConfig({ DB_PREPARED_STATEMENTS: '0' }).preparedStatements).toBe(false);
  });
});
