// Readiness for load balancers: whether the database answers, decided within a
// bound of its own. A probe that waited for the pool's bounds (a connection, then
// a statement) could take longer than a balancer's check; past PROBE_MS the answer
// is "not ready" and the statement is left to its own bound.
import type { Context } from './context.js';

const PROBE_MS = 1000;

/** Null when the database answered `select 1` within PROBE_MS; else why not. */
export async function databaseNotReady(ctx: Context): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`no answer within ${PROBE_MS} ms`)), PROBE_MS);
  });
  try {
    return await Promise.race([ctx.db.query('select 1').then(() => null, (err: unknown) => err ?? new Error('failed')), late]);
  } finally {
    clearTimeout(timer);
  }
}
