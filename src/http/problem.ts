// Every error leaves as RFC 9457 problem+json with a stable `code`: ours, the
// framework's (validation, bad JSON, body too large, unknown route), and the
// database's (as app/failures.ts translates them). A client error is never a 5xx;
// a 5xx says nothing about internals.
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ERROR_STATUS, unsupportedMediaType, type ErrorCode, type FieldError } from '../domain/errors.js';
import { contractError } from '../app/failures.js';

const TITLES: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'Invalid request',
  UNAUTHENTICATED: 'Sign-in required',
  INVALID_CREDENTIALS: 'Invalid credentials',
  FORBIDDEN: 'Forbidden',
  SALE_NOT_OPEN: 'Sale not open',
  SALE_CLOSED: 'Sale closed',
  QUEUE_REQUIRED: 'Waiting room required',
  NOT_FOUND: 'Not found',
  EMAIL_TAKEN: 'Email already registered',
  SEAT_UNAVAILABLE: 'Seats unavailable',
  LIMIT_EXCEEDED: 'Per-user limit exceeded',
  NOT_ENOUGH_SEATS: 'Not enough seats together',
  HOLD_PAYING: 'Payment in flight',
  HOLD_EXPIRED: 'Hold expired',
  HOLD_CONFIRMED: 'Hold already booked',
  IDEMPOTENCY_KEY_MISSING: 'Idempotency-Key required',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency-Key reused',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'Idempotency-Key in flight',
  CANCELLATION_WINDOW_CLOSED: 'Cancellation window closed',
  NOT_CANCELLABLE: 'Not cancellable',
  WEBHOOK_SIGNATURE_INVALID: 'Webhook signature invalid',
  TICKET_INVALID: 'Ticket invalid',
  ALREADY_CHECKED_IN: 'Already checked in',
  TICKET_VOID: 'Ticket void',
  RATE_LIMITED: 'Too many requests',
  NOT_YET_ADMITTED: 'Not admitted yet',
  ADMISSION_LAPSED: 'Admission lapsed',
  TOKEN_INVALID: 'Token invalid',
  NO_WAITING_ROOM: 'No waiting room',
  SHOW_CANCELLED: 'Show cancelled',
  SHOW_HAS_BOOKINGS: 'Show has bookings',
  SEATS_AVAILABLE: 'Seats available',
  OVERLOADED: 'Overloaded',
  SHARD_UNAVAILABLE: 'Shard unavailable',
  MOVE_IN_PROGRESS: 'Move in progress',
  NOT_READY: 'Not ready',
  INTERNAL: 'Internal error',
};

export interface ProblemAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export function problem(code: ErrorCode, detail: string, extensions: Record<string, unknown> = {}): ProblemAnswer {
  const status = ERROR_STATUS[code];
  const headers: Record<string, string> = { 'content-type': 'application/problem+json; charset=utf-8' };
  if (code === 'OVERLOADED' || extensions.retry_after !== undefined) headers['retry-after'] = String(extensions.retry_after ?? 1);
  return {
    status,
    headers,
    body: { type: `https://boxoffice.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`, title: TITLES[code], status, detail, code, ...extensions },
  };
}

export function sendAnswer(reply: FastifyReply, a: ProblemAnswer): FastifyReply {
  return reply.code(a.status).headers(a.headers).send(a.body);
}

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, extensions: Record<string, unknown> = {}): FastifyReply {
  return sendAnswer(reply, problem(code, detail, extensions));
}

// Fastify's own client errors (before our handlers run), all of them 400 by contract.
const FRAMEWORK_VALIDATION = new Set([
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_INVALID_TYPE',
  'FST_ERR_CTP_EMPTY_TYPE',
  'FST_ERR_VALIDATION',
]);

function fieldErrors(err: FastifyError): FieldError[] {
  return (err.validation ?? []).map((v) => {
    const { missingProperty: missing, additionalProperty: unknown } = (v.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
    const name = missing ?? unknown;
    const path = `${v.instancePath}${name ? `/${name}` : ''}` || '/';
    const where = err.validationContext && err.validationContext !== 'body' ? `${err.validationContext}:` : '';
    const message = unknown ? `unknown ${err.validationContext === 'querystring' ? 'query parameter' : 'property'} "${unknown}"` : v.message;
    return { path: `${where}${path}`, message: message ?? 'is not valid' };
  });
}

/** `page` answers a browser's navigation to one of the web app's pages (webApp.ts); false: not one. */
export function installProblemHandlers(app: FastifyInstance, page: (req: FastifyRequest, reply: FastifyReply) => boolean = () => false): void {
  app.setNotFoundHandler((req, reply) => {
    if (page(req, reply)) return reply;
    return sendProblem(reply, 'NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => sendAnswer(reply, problemFor(err, req.log)));
}

/** The problem+json answer for anything thrown while serving a request. */
export function problemFor(raw: unknown, log: FastifyBaseLogger): ProblemAnswer {
  const err = contractError(raw) as FastifyError | DomainError;
  if (err instanceof DomainError) {
    if (err.status >= 500) log.warn({ err: raw, code: err.code }, 'request refused');
    const a = problem(err.code, err.message, err.extensions);
    return err.status === a.status ? a : { ...a, status: err.status, body: { ...a.body, status: err.status } };
  }
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return problemFor(unsupportedMediaType('application/json'), log);
  if (err.validation) return problem('VALIDATION_FAILED', 'the request is not valid', { errors: fieldErrors(err) });
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return problem('VALIDATION_FAILED', 'the body is larger than 64 KiB', { errors: [{ path: 'body', message: 'over 64 KiB' }] });
  }
  if (FRAMEWORK_VALIDATION.has(err.code) || err instanceof SyntaxError) {
    return problem('VALIDATION_FAILED', err.message, { errors: [{ path: 'body', message: err.message }] });
  }
  const status = err.statusCode ?? 500;
  if (status === 404) return problem('NOT_FOUND', 'not found');
  if (status >= 400 && status < 500) return problem('VALIDATION_FAILED', err.message);
  log.error({ err }, 'unexpected error');
  return problem('INTERNAL', 'something went wrong on our side; it has been logged');
}
