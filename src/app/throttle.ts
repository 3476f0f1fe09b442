// The abuse limits as use-cases see them: one request taken from each budget it
// belongs to, and a 429 RATE_LIMITED when any of them is spent.
import { DomainError, ERROR_STATUS, type Refusal } from '../domain/errors.js';
import { strictest, type PolicyName, type Verdict } from '../domain/rateLimits.js';
import type { Context } from './context.js';

/** Who is asking, as far as limits go: the client address, and whether RATE_LIMIT_EXEMPT covers it. */
export interface Client {
  address: string;
  exempt: boolean;
}

export type Budget = readonly [PolicyName, string];

export function rateLimited(retryAfterSeconds: number): Refusal {
  return {
    code: 'RATE_LIMITED',
    status: ERROR_STATUS.RATE_LIMITED,
    message: `too many requests; try again in ${retryAfterSeconds} s`,
    extensions: { retry_after: retryAfterSeconds },
  };
}

/**
 * Takes one request from every budget (in parallel: one Redis round trip in all);
 * the refusal with the longest wait, or null. An exempt client is never refused.
 * Returned as data, not thrown: an attacker's flood is mostly refusals.
 */
export async function throttle(ctx: Context, client: Client, budgets: readonly Budget[]): Promise<Refusal | null> {
  if (client.exempt) return null;
  const verdicts = await Promise.all(budgets.map(([name, key]) => ctx.rateLimits.consume(ctx.rateLimits.policies[name], key)));
  verdicts.forEach((v, i) => { if (!v.allowed) ctx.metrics.rateLimited.inc({ policy: budgets[i]![0] }); });
  return refusalOf(strictest(verdicts));
}

export function refusalOf(v: Verdict): Refusal | null {
  return v.allowed ? null : rateLimited(v.retryAfterSeconds);
}

/** throttle() for use-cases that throw their refusals. */
export async function throttleOrThrow(ctx: Context, client: Client, budgets: readonly Budget[]): Promise<void> {
  const refused = await throttle(ctx, client, budgets);
  if (refused) throw new DomainError(refused.code, refused.message, refused.extensions);
}
