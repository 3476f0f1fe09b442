import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { unsupportedMediaType, validationFailed, type DomainError } from '../../domain/errors.js';
import { BODY_LIMIT } from '../limits.js';
import * as bookings from '../../app/bookings.js';
import type { Context } from '../../app/context.js';
import { canonicalJson } from '../../domain/ids.js';
import { requireUser } from '../auth.js';
import { admissionOf } from '../../waiting-room/gate.js';
import { limitPurchases } from '../rateLimitHooks.js';
import { limitInFlight } from '../purchaseLimit.js';
import { problem, problemFor, sendAnswer, type ProblemAnswer } from '../problem.js';
import { Booking, BookingInput, IdParams, problemResponse, rateLimited, userRefusals } from '../schemas.js';
import { AdmissionHeader } from '../schemas.js';
import { paymentMethodTable } from '../openapi.js';

const bookingExample = {
  booking_id: 'bkg_01J9', hold_id: 'hld_01J9', show_id: 'shw_01J9', seats: ['F7', 'F8'], amount: 50000, currency: 'EUR',
  status: 'confirmed', created_at: '2026-12-01T20:01:00.000Z',
};
const notYours = problemResponse("NOT_FOUND: no such booking, or another user's");

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
    const bookingSlot = limitInFlight(ctx, 'booking');
    scope.post('/v1/bookings', {
      onRequest: [requireUser(ctx), limitPurchases(ctx), bookingSlot.onRequest],
      onSend: bookingSlot.onSend,
      // Validated in the handler (readBookingBody); the schema documents it.
      validatorCompiler: () => (data: unknown) => ({ value: data }),
      schema: {
        tags: ['bookings'], summary: 'Pay for a hold (needs Idempotency-Key)', security, body: BookingInput,
        description: 'Charges the hold\'s amount and books its seats. The request waits up to 10 s for the provider\'s first answer: '
          + '`status` is `confirmed` (paid, seats booked), `failed` (declined: the hold stays active until it expires, so retry with another '
          + 'payment method and a new key) or `pending` (the outcome is not known yet: poll `GET /v1/bookings/{id}`). '
          + 'A repeat with the same key and body answers exactly what the first answered and never charges again; every answer except '
          + '401, 403 `QUEUE_REQUIRED`, 429, 5xx and the `IDEMPOTENCY_*` ones is stored under the key and replayed.\n\n'
          + `Test payment methods of the bundled payment simulator:\n\n${paymentMethodTable}`,
        // Required in the document; the handler checks it itself (this route has its own validator compiler),
        // so a missing key stays 400 IDEMPOTENCY_KEY_MISSING rather than a VALIDATION_FAILED.
        headers: Type.Object({
          'idempotency-key': Type.String({ minLength: 1, maxLength: 255, description: 'Any 1 to 255 characters, new for each payment attempt; a repeat replays the first answer', examples: ['3f0c9a4e-booking-1'] }),
          ...AdmissionHeader.properties,
        }),
        response: {
          201: { ...Booking, description: 'The booking: confirmed, failed (`failure` says why) or pending (also a replay of the first answer for this key)', examples: [bookingExample] },
          400: problemResponse('IDEMPOTENCY_KEY_MISSING without a valid key; VALIDATION_FAILED for a body that is not valid (stored under the key)'),
          ...userRefusals,
          403: problemResponse('QUEUE_REQUIRED: a waiting-room show without a valid Admission-Token'),
          404: problemResponse('NOT_FOUND: no hold with this id'),
          409: problemResponse('HOLD_EXPIRED: the hold is expired, released, not your active hold, or its show started (nothing charged); SHOW_CANCELLED: the show was cancelled (nothing charged); IDEMPOTENCY_KEY_IN_FLIGHT while the first request with this key runs'),
          415: problemResponse('VALIDATION_FAILED: the body is not application/json'),
          422: problemResponse('IDEMPOTENCY_KEY_REUSED: this key was used with a different body'),
          ...rateLimited,
          503: problemResponse('OVERLOADED: the purchase path is busy (with Retry-After); NOT_READY while this instance shuts down'),
        },
      },
    }, async (req, reply) => {
      const buyer = req.principal!;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
        return sendAnswer(reply, problem('IDEMPOTENCY_KEY_MISSING', 'send an Idempotency-Key header of 1 to 255 characters'));
      }
      const body = readBookingBody(req.headers['content-type'], typeof req.body === 'string' ? req.body : '');
      const admission = admissionOf(ctx.room.tokens, req.headers['admission-token'], buyer.userId);
      const request = { key, canonicalBody: body.fingerprint, input: 'error' in body ? body.error : body.input, admittedShowId: admission?.showId ?? null };
      const outcome = await bookings.bookOnce(ctx, buyer, request, {
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
    schema: {
      tags: ['bookings'], summary: 'A booking (yours, or any for an admin)', security, params: IdParams,
      description: '`status` is `pending`, `confirmed`, `failed`, `cancelled` or `refunded`; `refund` once money went back.',
      response: { 200: { ...Booking, description: 'The booking', examples: [bookingExample] }, ...userRefusals, 404: notYours },
    },
  }, async (req) => bookings.getBooking(ctx, req.principal!, req.params.id));

  app.get('/v1/bookings', {
    ...user,
    schema: {
      tags: ['bookings'], summary: 'Your bookings, newest first', security,
      description: "The caller's bookings, whatever their status.",
      response: { 200: Type.Object({ bookings: Type.Array(Booking) }, { description: 'Your bookings', examples: [{ bookings: [bookingExample] }] }), ...userRefusals },
    },
  }, async (req) => bookings.listBookings(ctx, req.principal!));

  app.post<{ Params: IdParams }>('/v1/bookings/:id/cancel', {
    ...user,
    schema: {
      tags: ['bookings'], summary: 'Cancel a confirmed booking and refund it', security, params: IdParams,
      description: 'Its seats are available at once and its tickets void; a repeat answers the same and refunds nothing more.',
      response: {
        200: { ...Booking, description: 'The booking, cancelled, with its refund', examples: [{ ...bookingExample, status: 'cancelled', refund: { status: 'pending', amount: 50000 } }] },
        ...userRefusals,
        404: notYours,
        409: problemResponse('CANCELLATION_WINDOW_CLOSED later than cancel_until_minutes_before the start; NOT_CANCELLABLE unless confirmed, or once a ticket was checked in'),
      },
    },
  }, async (req) => bookings.cancelBooking(ctx, req.principal!, req.params.id));
}
