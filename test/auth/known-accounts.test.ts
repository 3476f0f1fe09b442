// Which signed tokens' accounts exist, on the purchase path (src/app/knownAccounts.ts),
// against the real PostgreSQL: accounts asked for while a look-up is out go together in
// the next one, each account is read once however many ask, a missing account is
// refused and not remembered, and a control database that does not answer in time
// lets the signature vouch for the account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { existingUsers, insertUser } from '../../src/db/users.js';
import { KnownAccounts } from '../../src/app/knownAccounts.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let db: Database;
const ids = Array.from({ length: 60 }, (_, i) => `usr_known_${String(i).padStart(3, '0')}`);

beforeAll(async () => {
  database = await createTestDatabase();
  db = connectPostgres(database.url, 4);
  await migrate(db);
  for (const id of ids) await insertUser(db, { id, email: `${id}@example.test`, password_hash: 'x', name: id });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

/** The real look-up, with every statement it sends written down. */
function countedLookup() {
  const batches: string[][] = [];
  return { batches, lookup: (userIds: readonly string[]) => { batches.push([...userIds]); return existingUsers(db, userIds); } };
}

describe('known accounts', () => {
  it('reads the accounts first seen together in one statement, and each of them once', async () => {
    const { batches, lookup } = countedLookup();
    const accounts = new KnownAccounts(lookup, 60_000, 5_000);
    // 60 buyers' first holds at once, each asking twice: the first look-up goes out
    // alone, everything asked while it is out goes in the next.
    const answers = await Promise.all([...ids, ...ids].map((id) => accounts.exists(id)));
    expect(answers.every((a) => a === true)).toBe(true);
    expect(batches.length).toBe(2);
    expect(batches.flat().sort()).toEqual([...ids].sort());
    // Seen now: no statement for them again.
    expect(await Promise.all(ids.map((id) => accounts.exists(id)))).toEqual(ids.map(() => true));
    expect(batches.length).toBe(2);
  });

  it('refuses an account that does not exist, in a batch with ones that do, and asks again next time', async () => {
    const { batches, lookup } = countedLookup();
    const accounts = new KnownAccounts(lookup, 60_000, 5_000);
    const [first, ...rest] = await Promise.all([ids[0]!, 'usr_gone_1', ids[1]!, 'usr_gone_2'].map((id) => accounts.exists(id)));
    expect([first, ...rest]).toEqual([true, false, true, false]);
    expect(await accounts.exists('usr_gone_1')).toBe(false);
    expect(batches.flat().filter((id) => id === 'usr_gone_1')).toHaveLength(2);
  });

  it('lets the signature vouch when the look-up does not answer in time, and remembers the late answer', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const { batches, lookup } = countedLookup();
    const accounts = new KnownAccounts(async (userIds) => { await held; return lookup(userIds); }, 60_000, 100);
    const started = performance.now();
    expect(await accounts.exists('usr_gone_3')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
    release();
    await new Promise((r) => setTimeout(r, 200));
    expect(batches).toEqual([['usr_gone_3']]);
    // The answer came: the missing account is refused now, and looked up again to say so.
    expect(await accounts.exists('usr_gone_3')).toBe(false);
  });

  it('lets the signature vouch when the look-up fails, and the next batch still goes out', async () => {
    let fail = true;
    const { batches, lookup } = countedLookup();
    const accounts = new KnownAccounts((userIds) => (fail ? Promise.reject(new Error('control database away')) : lookup(userIds)), 60_000, 5_000);
    expect(await accounts.exists('usr_gone_4')).toBe(true);
    fail = false;
    expect(await accounts.exists('usr_gone_4')).toBe(false);
    expect(batches).toEqual([['usr_gone_4']]);
  });
});
