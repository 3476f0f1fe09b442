// Readiness for load balancers: whether the database answers, decided within a
// bound of its own. A probe that waited for the pool's bounds (a connection, then
// a statement) could take longer than a balancer's check; past PROBE_MS the answer
// is "not ready" and the statement is left to its own bound. With shards, the
// instance is ready while the control database answers; shards that do not are named.
import { ping } from '../db/readiness.js';
import type { Queryable } from '../db/client.js';
import type { Context } from './context.js';

const PROBE_MS = 1000;

export type Readiness =
  | { ready: true; database: 'postgres' | 'pglite'; shardsDown: string[] }
  | { ready: false; why: unknown; warmingUp?: true };

/** null when the database answered a statement within PROBE_MS; else why not. */
export async function probe(db: Queryable): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`no answer within ${PROBE_MS} ms`)), PROBE_MS);
  });
  try {
    return await Promise.race([ping(db).then(() => null, (err: unknown) => err ?? new Error('failed')), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ready when the start's warm-up is over and the control database answered within PROBE_MS; shards probed side by side, those that did not are named. */
export async function readiness(ctx: Context): Promise<Readiness> {
  // Not before the warm-up is over: the first seconds of a sale would meet a cold instance.
  if (ctx.warmup && !ctx.warmup.ready) return { ready: false, why: new Error('warming up'), warmingUp: true };
  const shards = ctx.inventory.single ? [] : ctx.inventory.named();
  const [why, ...shardWhys] = await Promise.all([probe(ctx.db), ...shards.map((s) => probe(s.db))]);
  if (why !== null) return { ready: false, why };
  return { ready: true, database: ctx.db.kind, shardsDown: shards.filter((_s, i) => shardWhys[i] !== null).map((s) => s.name) };
}
