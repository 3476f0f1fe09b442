// The client behind a request as the abuse limits see it. req.ip honours
// TRUST_PROXY (Fastify's trustProxy), so behind a proxy it is the real client.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { Context } from '../app/context.js';
import { throttle, type Budget, type Client } from '../app/throttle.js';
import type { PolicyName } from '../domain/rateLimits.js';
import { sendProblem } from './problem.js';

export function clientOf(ctx: Context, req: FastifyRequest): Client {
  return { address: req.ip, exempt: ctx.rateLimitExempt.covers(req.ip) };
}

/**
 * An onRequest hook, after the auth hook: one request from the caller's account
 * budget, then its address budget, so a 429 answers right after a 401, before
 * any lookup or body parsing.
 */
export function limitPerAccountAndAddress(ctx: Context, account: PolicyName, address: PolicyName): onRequestHookHandler {
  // Callback style: an exempt client (a load test) passes without a promise.
  return function (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const client = clientOf(ctx, req);
    if (client.exempt) return done();
    const budgets: Budget[] = [[account, req.principal!.userId], [address, client.address]];
    throttle(ctx, client, budgets).then((refused) => {
      if (!refused) return done();
      void sendProblem(reply, refused.code, refused.message, refused.extensions);
    }, done);
  };
}

/** The purchase path's limits: holds, their release, bookings. */
export const limitPurchases = (ctx: Context) => limitPerAccountAndAddress(ctx, 'purchase_account', 'purchase_address');

/** The waiting room's joins (`POST /v1/shows/{id}/queue`), for the route that will serve them. */
export const limitQueueJoins = (ctx: Context) => limitPerAccountAndAddress(ctx, 'queue_join_account', 'queue_join_address');
