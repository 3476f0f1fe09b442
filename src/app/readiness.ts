// Readiness for load balancers: whether the database answers, decided within a
// bound of its own. A probe that waited for the pool's bounds (a connection, then
// a statement) could take longer than a balancer's check; past PROBE_MS the answer
// is "not ready" and the statement is left to its own bound.
import { ping } from '../db/readiness.js';
import type { Context } from './context.js';

const PROBE_MS = 1000;

export type Readiness = { ready: true; database: 'postgres' | 'pglite' } | { ready: false; why: unknown };

/** Ready when the database answered a statement within PROBE_MS; else why not. */
export async function readiness(ctx: Context): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`no answer within ${PROBE_MS} ms`)), PROBE_MS);
  });
  try {
    const why = await Promise.race([ping(ctx.db).then(() => null, (err: unknown) => err ?? new Error('failed')), late]);
    return why === null ? { ready: true, database: ctx.db.kind } : { ready: false, why };
  } finally {
    clearTimeout(timer);
  }
}
