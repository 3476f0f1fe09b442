// Sending answers the way Stripe's API does: JSON bodies, a Request-Id on each.
import type { FastifyReply } from 'fastify';
import type { StripeApiError } from './errors.js';

export function sendError(reply: FastifyReply, err: StripeApiError): FastifyReply {
  return reply.code(err.status).headers(err.headers).type('application/json').send(JSON.stringify(err.toJSON()));
}

/** An already-serialized JSON body (saved answers are replayed byte for byte). */
export function sendJsonText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('application/json').send(body);
}
