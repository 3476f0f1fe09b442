import type { Queryable } from './client.js';

/** The stored secret of that name, creating it from `make()` if absent; the first instance to store one wins. */
export async function sharedSecret(db: Queryable, name: string, make: () => string): Promise<string> {
  await db.query('insert into secrets (name, value) values ($1, $2) on conflict (name) do nothing', [name, make()]);
  const r = await db.query<{ value: string }>('select value from secrets where name = $1', [name]);
  return r.rows[0]!.value;
}
