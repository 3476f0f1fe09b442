// The warm-up's one read of the catalog: the shows whose maps a sale's first seconds will ask for.
import type { Queryable } from './client.js';

/** Shows not cancelled nor started whose sale opened or opens within the hour: those opening or opened last first. */
export async function showsAboutToSell(db: Queryable, limit: number): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `select id from shows
      where cancelled_at is null and starts_at > now() and sale_opens_at <= now() + interval '1 hour'
      order by sale_opens_at desc
      limit $1`,
    [limit],
  );
  return r.rows.map((row) => row.id);
}

/** A statement that takes a connection for a moment and touches nothing: `n` of them at once open n connections. */
export async function holdConnectionBriefly(db: Queryable): Promise<void> {
  await db.query('select pg_sleep(0.02)');
}
