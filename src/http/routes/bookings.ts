import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { unsupportedMediaType, validationFailed, type DomainError } from '../../domain/errors.js';
import { BODY_LIMIT } from '../limits.js';
import * as bookings from '../../app/bookings.js';
import type { Context } from '../../app/context.js';
import { bookOnce } from '../../app/idempotentBooking.js';
import { canonicalJson } from '../../domain/ids.js';
import { requireUser } from '../auth.js';
import { admissionOf } from '../../waiting-room/gate.js';
import { limitPurchases } from '../client.js';
import { limitInFlight } from '../purchaseLimit.js';
import { problem, problemFor, sendAnswer, type ProblemAnswer } from '../problem.js';
import { Booking, BookingInput, IdParams, Problem } from '../schemas.js';

const checkBookingInput = TypeCompiler.Compile(BookingInput);

type BookingBody = { fingerprint: string } & ({ input: BookingInput } | { error: DomainError });

/** Parses and checks the booking body; what is wrong becomes a 400 stored under the key. */
function readBookingBody(contentType: string | undefined, raw: string): BookingBody {
  const invalid = (message: string, errors: { path: string; message: string }[] = []) =>
    ({ fingerprint: raw, error: validationFailed(message, errors) });
  if (!/^application\/json\b/i.test(contentType ?? '')) return { fingerprint: raw, error: unsupportedMediaType('application/json') };
  if (Buffer.byteLength(raw) > BODY_LIMIT) return invalid('the body is larger than 64 KiB', [{ path: 'body', message: 'over 64 KiB' }]);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return invalid('the body is not valid JSON', [{ path: 'body', message: (err as Error).message }]);
  }
  const fingerprint = canonicalJson(value);
  if (!checkBookingInput.Check(value)) {
    const errors = [...checkBookingInput.Errors(value)].slice(0, 20).map((e) => ({ path: e.path || '/', message: e.message }));
    return { fingerprint, error: validationFailed('the request is not valid', errors) };
  }
  return { fingerprint, input: value };
}

function jsonAnswer(status: number, body: unknown): ProblemAnswer {
  return { status, headers: { 'content-type': status >= 400 ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8' }, body: body as Record<string, unknown> };
}

export default async function bookingRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const user = { onRequest: requireUser(ctx) };
  const security = [{ bearer: [] }];

  // POST /v1/bookings reads its own body: every answer but 401, 5xx and the
  // IDEMPOTENCY_* ones is stored under the key — malformed JSON and oversized
  // bodies included — so Fastify must not answer those before the handler runs.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 16 * BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.post('/v1/bookings', {
      onRequest: [requireUser(ctx), limitPurchases(ctx), limitInFlight(ctx, 'booking')],
      // Validated in the handler (readBookingBody); the schema documents it.
      validatorCompiler: () => (data: unknown) => ({ value: data }),
      schema: {
        tags: ['bookings'], summary: 'Pay for a hold (needs Idempotency-Key)', security, body: BookingInput,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        response: { 201: Booking, 400: Problem, 404: Problem, 409: Problem, 415: Problem, 422: Problem, 429: Problem },
      },
    }, async (req, reply) => {
      const buyer = req.principal!;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
        return sendAnswer(reply, problem('IDEMPOTENCY_KEY_MISSING', 'send an Idempotency-Key header of 1 to 255 characters'));
      }
      const body = readBookingBody(req.headers['content-type'], typeof req.body === 'string' ? req.body : '');
      const admission = await admissionOf(ctx.room.tokens, req.headers['admission-token'], buyer.userId);
      const request = { key, canonicalBody: body.fingerprint, input: 'error' in body ? body.error : body.input, admittedShowId: admission?.showId ?? null };
      const outcome = await bookOnce(ctx, buyer, request, {
        created: (view) => jsonAnswer(201, view),
        failed: (err) => problemFor(err, req.log),
      });
      switch (outcome.kind) {
        case 'reused':
          return sendAnswer(reply, problem('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different body'));
        case 'in_flight':
          return sendAnswer(reply, problem('IDEMPOTENCY_KEY_IN_FLIGHT', 'the first request with this Idempotency-Key is still running', { retry_after: 1 }));
        case 'replay':
          return sendAnswer(reply, jsonAnswer(outcome.status, outcome.body));
        case 'answered':
          return sendAnswer(reply, outcome.answer);
      }
    });
  });

  app.get<{ Params: IdParams }>('/v1/bookings/:id', {
    ...user,
    schema: { tags: ['bookings'], summary: 'A booking (yours, or any for an admin)', security, params: IdParams, response: { 200: Booking, 404: Problem } },
  }, async (req) => bookings.getBooking(ctx, req.principal!, req.params.id));

  app.get('/v1/bookings', {
    ...user,
    schema: { tags: ['bookings'], summary: 'Your bookings, newest first', security, response: { 200: Type.Object({ bookings: Type.Array(Booking) }) } },
  }, async (req) => bookings.listBookings(ctx, req.principal!));

  app.post<{ Params: IdParams }>('/v1/bookings/:id/cancel', {
    ...user,
    schema: { tags: ['bookings'], summary: 'Cancel a confirmed booking and refund it', security, params: IdParams, response: { 200: Booking, 404: Problem, 409: Problem } },
  }, async (req) => bookings.cancelBooking(ctx, req.principal!, req.params.id));
}
