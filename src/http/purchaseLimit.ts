// The purchase path's concurrency limit as an onRequest hook (after auth and the
// rate limits): beyond the instance's adaptive limit a hold or booking is answered
// 503 OVERLOADED with Retry-After at once, before any database work. The slot is
// given back when the answer is sent (or the client goes away), with its latency.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { Context } from '../app/context.js';
import type { PurchasePath } from '../waiting-room/purchaseLimits.js';
import { sendProblem } from './problem.js';
import { markShed } from './logging.js';

export function limitInFlight(ctx: Context, path: PurchasePath): onRequestHookHandler {
  const limit = ctx.purchaseLimits[path];
  return function (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (!limit.tryAcquire()) {
      markShed(req);
      ctx.purchaseLimits.observe(path, 0, 503, true);
      reply.raw.once('finish', () => ctx.purchaseLimits.shedSeconds.observe(reply.elapsedTime / 1000));
      void sendProblem(reply, 'OVERLOADED', 'too many purchases in flight on this instance; try again in a moment', { retry_after: 1 });
      return;
    }
    const started = performance.now();
    const met = limit.inFlight;
    reply.raw.once('close', () => {
      const ms = performance.now() - started;
      limit.release(ms, reply.statusCode >= 500, met);
      ctx.purchaseLimits.observe(path, ms, reply.statusCode);
    });
    done();
  };
}
