import type { Queryable } from './client.js';

/** The stored secret of that name, creating it from `make()` if absent; the first instance to store one wins. */
export async function sharedSecret(db: Queryable, name: string, make: () => string): Promise<string> {
  await db.query('insert into secrets (name, value) values ($1, $2) on conflict (name) do nothing', [name, make()]);
  const r = await db.query<{ value: string }>('select value from secrets where name = $1', [name]);
  return r.rows[0]!.value;
}

/** Stores `value` under `name` if its stored value is still empty (made by sharedSecret's `make` returning ''); another instance may have stored one first. */
export async function fillEmptySecret(db: Queryable, name: string, value: string): Promise<void> {
  await db.query(`update secrets set value = $2 where name = $1 and value = ''`, [name, value]);
}
