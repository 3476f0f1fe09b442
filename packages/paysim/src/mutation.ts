// The path of every POST that changes the books: claim the Idempotency-Key,
// run the endpoint, save its answer, then send it — or lose it on the way back
// (a lost-answer payment method, or chaos), leaving the connection unanswered.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError, sendJsonText } from './answers.js';
import { apiKeyOf } from './apiHooks.js';
import type { SimContext } from './context.js';
import { StripeApiError, idempotencyKeyInUse, idempotencyMismatch, invalidParam } from './errors.js';
import type { RequestRef } from './events.js';
import { fingerprint, type Claim } from './idempotency.js';

/** What an endpoint produced: an answer to save for idempotent replays and to send (unless it is lost). */
export interface Outcome {
  status: number;
  body: unknown;
  losesAnswer?: boolean;
}

export async function runMutation(
  ctx: SimContext,
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint: (ref: RequestRef) => Promise<Outcome> | Outcome,
): Promise<FastifyReply | void> {
  const requestId = String(reply.getHeader('request-id'));
  const rawKey = request.headers['idempotency-key'];
  const key = typeof rawKey === 'string' && rawKey !== '' ? rawKey : null;
  let claim: Claim | null = null;
  if (key !== null) {
    if (key.length > 255) return sendError(reply, invalidParam('Idempotency-Key must be at most 255 characters long.', 'idempotency_key_too_long'));
    reply.header('idempotency-key', key);
    const path = request.url.split('?', 1)[0] ?? request.url;
    claim = ctx.keys.claim(apiKeyOf(request) ?? '', key, fingerprint(request.method, path, request.body ?? {}));
    if (claim.kind === 'mismatch') return sendError(reply, idempotencyMismatch(key));
    if (claim.kind === 'in_progress') return sendError(reply, idempotencyKeyInUse(key));
    if (claim.kind === 'replay') {
      reply.header('idempotent-replayed', 'true').header('original-request', claim.answer.requestId);
      return sendJsonText(reply, claim.answer.status, claim.answer.body);
    }
  }
  const first = claim?.kind === 'first' ? claim : null;

  let outcome: Outcome;
  try {
    outcome = await endpoint({ requestId, idempotencyKey: key });
  } catch (err) {
    if (!(err instanceof StripeApiError) || !err.stored) {
      first?.release();
      if (err instanceof StripeApiError) return sendError(reply, err);
      throw err;
    }
    outcome = { status: err.status, body: err.toJSON() };
  }

  const body = JSON.stringify(outcome.body);
  first?.save({ status: outcome.status, body, requestId });
  if (outcome.losesAnswer || ctx.chaos.happens(ctx.chaos.settings.timeout_after_commit_rate)) {
    request.log.info({ requestId, idempotencyKey: key }, 'outcome committed; its answer is lost on purpose');
    ctx.held.hold(reply);
    return;
  }
  return sendJsonText(reply, outcome.status, body);
}
