// Synthetic buyers: accounts made in bulk for rehearsals and load tests, each with
// a bearer token, so a rehearsal measures the purchase path rather than thousands
// of sign-ups (scrypt is slow on purpose). They are buyers like any other — the
// same rate limits, holds, limits per user — marked with the label they were made
// under; they have no password, so nobody can sign in as one. The route exists
// only when the operator turned it on (BOXOFFICE_SYNTHETIC_BUYERS=1).
import { newId } from '../domain/ids.js';
import { insertSyntheticUsers } from '../db/users.js';
import type { Principal } from '../auth/tokens.js';
import type { Context } from './context.js';

export const MAX_SYNTHETIC_BUYERS = 10_000;

export async function createSyntheticBuyers(
  ctx: Context, admin: Principal, input: { count: number; label: string },
): Promise<{ buyers: { user_id: string; token: string }[] }> {
  const ids = Array.from({ length: input.count }, () => newId('usr'));
  // Up to 10,000 rows at once: a bulk write, under the background's statement bound (in a transaction), not the request's.
  await ctx.db.as('synthetic_buyers').transaction((tx) => insertSyntheticUsers(tx, ids, input.label));
  const buyers = ids.map((user_id) => ({ user_id, token: ctx.tokens.issue({ userId: user_id, role: 'user' }) }));
  ctx.log.info({ event: 'synthetic_buyers.created', count: ids.length, label: input.label, by: admin.userId }, 'synthetic buyers created');
  return { buyers };
}
