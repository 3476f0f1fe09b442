// What happens to every /v1 request before its route runs: a Request-Id, the
// secret-key check (Bearer, as the SDK sends it, or Basic, as curl -u does),
// then the chaos settings' added latency and injected 5xx.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendError } from './answers.js';
import type { SimContext } from './context.js';
import { apiError, authenticationError } from './errors.js';
import { newId, sleep } from './ids.js';

/** The secret key the request presents, or null. */
export function apiKeyOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const [scheme, value] = header.split(/\s+/, 2);
  if (!value) return null;
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(value, 'base64').toString('utf8').split(':', 1)[0] || null;
  return null;
}

function masked(key: string): string {
  return key.length <= 12 ? '*'.repeat(key.length) : `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}`;
}

export function installApiHooks(api: FastifyInstance, ctx: SimContext): void {
  api.addHook('onRequest', async (request, reply) => {
    reply.header('request-id', newId('req'));
    const key = apiKeyOf(request);
    if (key === null) {
      return sendError(reply, authenticationError(
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      ));
    }
    if (!ctx.apiKeys.has(key)) return sendError(reply, authenticationError(`Invalid API Key provided: ${masked(key)}`));
    const version = request.headers['stripe-version'];
    if (typeof version === 'string') reply.header('stripe-version', version);
    return undefined;
  });

  api.addHook('preHandler', async (_request, reply) => {
    const chaos = ctx.chaos.settings;
    await sleep(chaos.latency_ms);
    // Injected before the route runs: nothing is committed and no idempotency key is taken.
    if (ctx.chaos.happens(chaos.error_rate)) return sendError(reply, apiError());
    return undefined;
  });
}
