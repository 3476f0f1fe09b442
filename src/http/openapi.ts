// The OpenAPI document's shared parts: the Problem schema with every error code
// and what it means, the document's introduction, and the answers any route can
// give (declared once here so the document stays true as routes are added).
import type { RouteOptions } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.js';
import { TEST_PAYMENT_METHODS_FOR_PEOPLE } from '../app/paymentMethods.js';
import { problemResponse } from './schemas.js';

/** What each error code means, for people reading the document. */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'The request is not valid: wrong types, missing fields, unknown query parameters, unknown or duplicated seats, malformed JSON, a body over 64 KiB, a malformed URL or request. `errors: [{path, message}]` says where.',
  UNAUTHENTICATED: 'No valid bearer token (missing, forged, expired, or its account no longer exists).',
  INVALID_CREDENTIALS: 'Sign-in with a wrong email or password.',
  FORBIDDEN: 'Signed in, but without the role this route needs.',
  SALE_NOT_OPEN: 'The show\'s sale has not opened yet (`sale_opens_at`).',
  SALE_CLOSED: 'The show has started: its sale is over.',
  QUEUE_REQUIRED: 'The show sells through its waiting room: send a valid `Admission-Token`.',
  NOT_FOUND: 'No such resource, or not yours; also an unknown route.',
  EMAIL_TAKEN: 'An account with this email already exists.',
  SEAT_UNAVAILABLE: 'At least one requested seat is held or booked; `taken` lists them. None was held by this request.',
  LIMIT_EXCEEDED: 'The caller\'s held and booked seats for this show would exceed its `per_user_limit`.',
  NOT_ENOUGH_SEATS: 'Best available: no `count` adjacent free seats (one row, consecutive numbers) match the filters. Nothing was held.',
  HOLD_PAYING: 'A payment for this hold is in flight: it cannot be released now.',
  HOLD_EXPIRED: 'The hold is expired, released, not the caller\'s active hold, or its show has started; nothing was charged.',
  HOLD_CONFIRMED: 'The hold became a booking: cancel the booking instead.',
  IDEMPOTENCY_KEY_MISSING: '`POST /v1/bookings` needs an `Idempotency-Key` header of 1 to 255 characters.',
  IDEMPOTENCY_KEY_REUSED: 'This `Idempotency-Key` was used before with a different body.',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'The first request with this `Idempotency-Key` is still running; retry after `Retry-After`.',
  CANCELLATION_WINDOW_CLOSED: 'Too close to the show\'s start to cancel (`cancel_until_minutes_before`).',
  NOT_CANCELLABLE: 'Only a confirmed booking whose tickets were not checked in can be cancelled.',
  WEBHOOK_SIGNATURE_INVALID: 'The `Stripe-Signature` header is missing, does not verify, or its timestamp is more than 5 minutes off.',
  TICKET_INVALID: 'The ticket code does not verify.',
  ALREADY_CHECKED_IN: 'The ticket was checked in before; `checked_in_at` says when.',
  TICKET_VOID: 'The ticket belongs to a cancelled booking.',
  RATE_LIMITED: 'Too many requests from this account or client address; retry after `Retry-After` seconds.',
  NOT_YET_ADMITTED: 'The waiting room has not reached this queue position yet (or is paused or sold out): `position`, `serving` and `retry_after_seconds` say when to ask again.',
  ADMISSION_LAPSED: 'The queue position was served but did not ask for its admission within the grace period (`WAITING_ROOM_GRACE_SECONDS`): it lapsed for good; join the queue again to queue at the back.',
  TOKEN_INVALID: 'The queue token is forged, expired, or someone else\'s.',
  NO_WAITING_ROOM: 'This show does not sell through a waiting room.',
  SHOW_CANCELLED: 'This show has been cancelled: nothing more is sold for it, nobody joins its queue.',
  SHOW_HAS_BOOKINGS: 'Something was booked for this show: it cannot be deleted, cancel it instead.',
  SEATS_AVAILABLE: 'Enough adjacent seats are free: hold them instead of waiting.',
  OVERLOADED: 'The service is busy (the purchase path is at its concurrency limit, or the waiting room cannot reach its store); retry after `Retry-After` seconds.',
  MOVE_IN_PROGRESS: 'The show is being moved to another shard already; wait for that move to finish.',
  SHARD_UNAVAILABLE: 'The shard holding this show\'s inventory does not answer (other shows keep selling); `shard` names it; retry after `Retry-After` seconds.',
  NOT_READY: 'The instance is not ready (its database does not answer) or is shutting down.',
  INTERNAL: 'Something went wrong on the service\'s side; it has been logged. The body says nothing about internals.',
};

const codes = Object.keys(ERROR_STATUS) as ErrorCode[];

const codeTable = ['| code | status | meaning |', '|---|---|---|', ...codes.map((c) => `| \`${c}\` | ${ERROR_STATUS[c]} | ${ERROR_MEANINGS[c]} |`)].join('\n');

export const paymentMethodTable = ['| payment_method | what it does |', '|---|---|', ...TEST_PAYMENT_METHODS_FOR_PEOPLE.map(([m, what]) => `| \`${m}\` | ${what} |`)].join('\n');

/** RFC 9457 problem details, the body of every error answer. */
export const ProblemSchema = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details: every error answer, as `application/problem+json`.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', description: 'A URI naming the problem type' },
    title: { type: 'string', description: 'A short summary of the problem type' },
    status: { type: 'integer', description: 'The HTTP status code' },
    detail: { type: 'string', description: 'What went wrong with this request' },
    code: { type: 'string', enum: codes, description: `The machine-readable error code:\n\n${codeTable}` },
    errors: {
      type: 'array', description: 'VALIDATION_FAILED: where the request is wrong',
      items: { type: 'object', properties: { path: { type: 'string', description: 'Where: a JSON pointer into the body, or querystring:/name' }, message: { type: 'string' } }, additionalProperties: true },
    },
    taken: { type: 'array', items: { type: 'string' }, description: 'SEAT_UNAVAILABLE: the requested seats that are held or booked' },
    retry_after: { type: 'integer', description: 'RATE_LIMITED, OVERLOADED, SHARD_UNAVAILABLE, IDEMPOTENCY_KEY_IN_FLIGHT: seconds to wait (also the Retry-After header)' },
    checked_in_at: { type: 'string', format: 'date-time', description: 'ALREADY_CHECKED_IN: the first check-in' },
    shard: { type: 'string', description: 'SHARD_UNAVAILABLE: the shard that does not answer' },
  },
  additionalProperties: true,
  example: {
    type: 'https://boxoffice.dev/problems/seat-unavailable', title: 'Seats unavailable', status: 409,
    detail: 'some seats are held or booked', code: 'SEAT_UNAVAILABLE', taken: ['F7'],
  },
} as const;

export const documentDescription = [
  'boxoffice sells every seat exactly once: browse shows, hold seats, pay for the hold with an `Idempotency-Key`, get tickets, check them in.',
  '',
  'JSON bodies with `snake_case` fields; times are RFC 3339 in UTC; money is an integer in minor units with an ISO 4217 `currency`. '
    + 'Routes marked with a lock need `Authorization: Bearer <token>` (from `POST /v1/users` or `POST /v1/sessions`). '
    + 'An unknown query parameter is a 400 on every route.',
  '',
  '## Errors',
  '',
  'Every error is `application/problem+json` (RFC 9457): `{type, title, status, detail, code, ...extensions}`.',
  '',
  codeTable,
  '',
  '## Test payment methods',
  '',
  'The bundled payment simulator (used unless the service runs against real Stripe) understands these `payment_method` values:',
  '',
  paymentMethodTable,
].join('\n');

/** Answers any route may give, whatever it does: declared on every route that does not say otherwise. */
const COMMON_ANSWERS: Record<string, object> = {
  400: problemResponse('VALIDATION_FAILED: an unknown query parameter, a malformed URL, or a parameter or body that is not valid'),
  431: problemResponse('VALIDATION_FAILED: the request line and headers are larger than this server accepts'),
  500: problemResponse('INTERNAL: something went wrong on our side; it has been logged'),
  503: problemResponse('NOT_READY while this instance shuts down; OVERLOADED when the database is busy (with Retry-After); SHARD_UNAVAILABLE when the shard of the show does not answer (with Retry-After)'),
};
const WRONG_MEDIA_TYPE = problemResponse('VALIDATION_FAILED: the body is not application/json');
const PATH_ID_TOO_LONG = problemResponse('NOT_FOUND: no such resource (also for an id longer than any id)');

/** An onRoute hook: adds the answers every route can give to the route's own. */
export function declareCommonAnswers(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
  if (!schema || schema.hide) return;
  const own = schema.response ?? {};
  const common: Record<string, object> = { ...COMMON_ANSWERS };
  if (route.url.includes(':')) common[404] = PATH_ID_TOO_LONG;
  if ((route.schema as { body?: unknown }).body) common[415] = WRONG_MEDIA_TYPE;
  route.schema = { ...route.schema, response: { ...common, ...own } };
}
