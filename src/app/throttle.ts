// The abuse limits as use-cases see them: one request taken from each budget it
// belongs to, and a 429 RATE_LIMITED when any of them is spent.
import { DomainError, ERROR_STATUS, type Refusal } from '../domain/errors.js';
import type { PolicyName } from '../domain/rateLimits.js';
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
 * Takes one request from each budget in turn and stops at the first that is
 * spent: a request refused for its account does not spend its address's budget,
 * so one abusive account does not lock out its neighbours behind the same NAT.
 * An exempt client is never refused. Returned as data, not thrown: an
 * attacker's flood is mostly refusals.
 */
export async function throttle(ctx: Context, client: Client, budgets: readonly Budget[]): Promise<Refusal | null> {
  if (client.exempt) return null;
  for (const [name, key] of budgets) {
    const verdict = await ctx.rateLimits.consume(ctx.rateLimits.policies[name], key);
    if (!verdict.allowed) {
      ctx.metrics.rateLimited.inc({ policy: name });
      return rateLimited(verdict.retryAfterSeconds);
    }
  }
  return null;
}

/** A 429 for use-cases that throw their refusals. */
export function rateLimitedError(retryAfterSeconds: number): DomainError {
  const r = rateLimited(retryAfterSeconds);
  return new DomainError(r.code, r.message, r.extensions);
}

/** throttle() for use-cases that throw their refusals. */
export async function throttleOrThrow(ctx: Context, client: Client, budgets: readonly Budget[]): Promise<void> {
  const refused = await throttle(ctx, client, budgets);
  if (refused) throw new DomainError(refused.code, refused.message, refused.extensions);
}
