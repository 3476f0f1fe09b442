// Show placements (control database): which shard holds each show's inventory, and
// the look-ups that find a record's shard when its id does not name its show.
import type { Queryable } from './client.js';

export interface Placement {
  show_id: string;
  shard: string;
  epoch: number;
  state: 'active' | 'moving';
}

/** Serializes placement decisions, so that two shows created at once weigh each other's demand. */
const PLACEMENT_LOCK = 7_401_338;

export async function findPlacement(db: Queryable, showId: string): Promise<Placement | null> {
  const r = await db.query<Placement>('select show_id, shard, epoch, state from show_placement where show_id = $1', [showId]);
  return r.rows[0] ?? null;
}

/** The placements of these shows (those that have one). */
export async function findPlacements(db: Queryable, showIds: readonly string[]): Promise<Placement[]> {
  const r = await db.query<Placement>('select show_id, shard, epoch, state from show_placement where show_id = any($1::text[])', [showIds]);
  return r.rows;
}

/**
 * Among `shards` (in order; the first wins a tie), the one whose shows not yet started
 * expect the least demand. In a transaction: takes the placement lock first.
 */
export async function leastLoadedShard(tx: Queryable, shards: readonly string[]): Promise<string> {
  await tx.query('select pg_advisory_xact_lock($1)', [PLACEMENT_LOCK]);
  const r = await tx.query<{ shard: string; demand: number }>(
    `select p.shard, sum(s.expected_demand)::bigint as demand
       from show_placement p join shows s on s.id = p.show_id
      where s.starts_at > (select bo_now()) and p.shard = any($1::text[])
      group by p.shard`,
    [shards],
  );
  const demand = new Map(r.rows.map((row) => [row.shard, row.demand]));
  let best = shards[0]!;
  for (const name of shards) if ((demand.get(name) ?? 0) < (demand.get(best) ?? 0)) best = name;
  return best;
}

/** A move begins: the show's state becomes `moving` (its purchase routes answer 503); null when it is moving already. */
export async function beginMove(db: Queryable, showId: string): Promise<Placement | null> {
  const r = await db.query<Placement>(
    `update show_placement set state = 'moving', changed_at = now() where show_id = $1 and state = 'active'
     returning show_id, shard, epoch, state`, [showId]);
  return r.rows[0] ?? null;
}

/** A move ends: on `shard` with the next epoch (the flip), or where it was (a move that failed); active again. */
export async function endMove(db: Queryable, showId: string, shard: string, flip: boolean): Promise<Placement> {
  const r = await db.query<Placement>(
    `update show_placement set shard = $2, epoch = epoch + $3::int, state = 'active', changed_at = now() where show_id = $1
     returning show_id, shard, epoch, state`, [showId, shard, flip ? 1 : 0]);
  return r.rows[0]!;
}

export async function insertPlacement(tx: Queryable, showId: string, shard: string): Promise<void> {
  await tx.query('insert into show_placement (show_id, shard) values ($1, $2)', [showId, shard]);
}

/** Undoes a show whose inventory could not be written on its shard: its placement and catalog row. */
export async function deletePlacedShow(tx: Queryable, showId: string): Promise<void> {
  await tx.query('delete from show_placement where show_id = $1', [showId]);
  await tx.query('delete from shows where id = $1', [showId]);
}

/** Per shard: shows placed there, and the demand expected by those not yet started. */
export async function shardLoads(db: Queryable): Promise<Map<string, { shows: number; expected_demand: number }>> {
  const r = await db.query<{ shard: string; shows: number; expected_demand: number }>(
    `select p.shard, count(*)::bigint as shows,
            coalesce(sum(s.expected_demand) filter (where s.starts_at > (select bo_now())), 0)::bigint as expected_demand
       from show_placement p left join shows s on s.id = p.show_id
      group by p.shard`,
  );
  return new Map(r.rows.map((row) => [row.shard, { shows: row.shows, expected_demand: row.expected_demand }]));
}

const RECORD_TABLES = { hold: 'holds', bkg: 'bookings', pay: 'payment_attempts', rfd: 'refunds', tkt: 'tickets' } as const;

/** Whether this database holds the record (hold, booking, payment attempt, refund, ticket) an old-style id names. */
export async function holdsRecord(db: Queryable, id: string): Promise<boolean> {
  const prefix = id.slice(0, id.indexOf('_')) as keyof typeof RECORD_TABLES;
  const table = Object.hasOwn(RECORD_TABLES, prefix) ? RECORD_TABLES[prefix] : null;
  if (!table) return false;
  const r = await db.query<{ found: boolean }>(`select exists (select 1 from ${table} where id = $1) as found`, [id]);
  return r.rows[0]!.found;
}
