// The purchase path's concurrency limit as route hooks (after auth and the rate
// limits): beyond the instance's adaptive limit a hold or booking is answered 503
// OVERLOADED with Retry-After at once, before any database work. The slot is given
// back when the handler has its answer (onSend), with its latency and status — not
// when the connection closes: a client that gives up does not stop the claim it
// started, and a slot given back then would let in more work than the limit allows
// (and feed it the client's patience as a latency). Should no answer ever come, the
// slot goes back when the response ends or fails.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, onSendHookHandler } from 'fastify';
import type { Context } from '../app/context.js';
import type { PurchasePath } from '../waiting-room/purchaseLimits.js';
import { sendProblem } from './problem.js';
import { markShed } from './logging.js';

const slots = new WeakMap<FastifyRequest, () => void>();
/** Requests answered without the database (seats known taken): their latency says nothing of it. */
const unsampled = new WeakSet<FastifyRequest>();

export function limitInFlight(ctx: Context, path: PurchasePath): {
  onRequest: onRequestHookHandler; onSend: onSendHookHandler;
  /** Marks a request decided without the database: its slot goes back with no latency sample, and it counts for no controller. */
  decidedInMemory(req: FastifyRequest): void;
} {
  const limit = ctx.purchaseLimits[path];
  const onRequest = function (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (!limit.tryAcquire()) {
      markShed(req);
      ctx.purchaseLimits.observe(path, 0, 503, true);
      reply.raw.once('finish', () => ctx.purchaseLimits.shedSeconds.observe(reply.elapsedTime / 1000));
      void sendProblem(reply, 'OVERLOADED', 'too many purchases in flight on this instance; try again in a moment', { retry_after: 1 });
      return;
    }
    const started = performance.now();
    const met = limit.queueMet();
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      slots.delete(req);
      if (unsampled.has(req)) {
        limit.releaseUnsampled();
        return;
      }
      const ms = performance.now() - started;
      limit.release(ms, reply.statusCode >= 500, met);
      ctx.purchaseLimits.observe(path, ms, reply.statusCode);
    };
    slots.set(req, giveBack);
    reply.raw.once('finish', giveBack);
    reply.raw.once('error', giveBack);
    done();
  };
  const onSend: onSendHookHandler = function (req, _reply, payload, done) {
    slots.get(req)?.();
    done(null, payload);
  };
  return { onRequest, onSend, decidedInMemory: (req) => unsampled.add(req) };
}
