import type { Queryable } from './client.js';

/** Resolves when the database answers a statement; rejects with why not. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('select 1');
}
