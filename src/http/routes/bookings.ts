import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { validationFailed, type DomainError } from '../../domain/errors.js';
import { BODY_LIMIT } from '../limits.js';
import * as bookings from '../../app/bookings.js';
import type { Context } from '../../app/context.js';
import { canonicalJson } from '../../domain/ids.js';
import { claimKey, releaseKey, renewKey, storeAnswer } from '../../db/idempotency.js';
import { findBooking } from '../../db/bookings.js';
import { requireUser } from '../auth.js';
import { problem, problemFor, sendAnswer, type ProblemAnswer } from '../problem.js';
import { Booking, BookingInput, IdParams, Problem } from '../schemas.js';

// A running request renews its key's lease every few seconds; a request whose
// instance died leaves a lease that runs out soon, and a repeat then takes over.
const KEY_LEASE_SECONDS = 15;
const KEY_RENEW_MS = 5000;

const checkBookingInput = TypeCompiler.Compile(BookingInput);

type BookingBody = { fingerprint: string } & ({ input: BookingInput } | { error: DomainError });

/** Parses and checks the booking body; what is wrong becomes a 400 stored under the key. */
function readBookingBody(contentType: string | undefined, raw: string): BookingBody {
  const invalid = (message: string, errors: { path: string; message: string }[] = []) =>
    ({ fingerprint: raw, error: validationFailed(message, errors) });
  if (!/^application\/json\b/i.test(contentType ?? '')) return invalid('the body must be application/json');
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
      ...user,
      // Validated in the handler (readBookingBody); the schema documents it.
      validatorCompiler: () => (data: unknown) => ({ value: data }),
      schema: {
        tags: ['bookings'], summary: 'Pay for a hold (needs Idempotency-Key)', security, body: BookingInput,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        response: { 201: Booking, 400: Problem, 409: Problem, 422: Problem },
      },
    }, async (req, reply) => {
      const buyer = req.principal!;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
        return sendAnswer(reply, problem('IDEMPOTENCY_KEY_MISSING', 'send an Idempotency-Key header of 1 to 255 characters'));
      }
      const body = readBookingBody(req.headers['content-type'], typeof req.body === 'string' ? req.body : '');
      const fingerprint = createHash('sha256').update(body.fingerprint).digest('hex');
      const state = await claimKey(ctx.db, buyer.userId, key, fingerprint, KEY_LEASE_SECONDS);
      switch (state.kind) {
        case 'reused':
          return sendAnswer(reply, problem('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different body'));
        case 'in_flight':
          return sendAnswer(reply, problem('IDEMPOTENCY_KEY_IN_FLIGHT', 'the first request with this Idempotency-Key is still running', { retry_after: 1 }));
        case 'replay':
          return sendAnswer(reply, jsonAnswer(state.status, state.body));
      }
      let answer: ProblemAnswer;
      const renew = setInterval(() => void renewKey(ctx.db, buyer.userId, key, KEY_LEASE_SECONDS).catch(() => {}), KEY_RENEW_MS);
      try {
        if (state.kind === 'taken_over' && state.bookingId) {
          // The first request died after creating its booking: answer with that booking.
          answer = jsonAnswer(201, bookings.bookingView((await findBooking(ctx.db, state.bookingId))!));
        } else {
          if ('error' in body) throw body.error;
          answer = jsonAnswer(201, await bookings.book(ctx, buyer, key, body.input));
        }
      } catch (err) {
        answer = problemFor(err, req.log);
      } finally {
        clearInterval(renew);
      }
      if (answer.status >= 500) await releaseKey(ctx.db, buyer.userId, key);
      else await storeAnswer(ctx.db, buyer.userId, key, answer.status, answer.body);
      return sendAnswer(reply, answer);
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
