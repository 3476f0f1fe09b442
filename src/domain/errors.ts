// The closed set of error codes of the contract, each with its HTTP status.
// Mapped to problem+json in one place: src/http/problem.ts.
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  SALE_NOT_OPEN: 403,
  SALE_CLOSED: 403,
  QUEUE_REQUIRED: 403,
  NOT_FOUND: 404,
  EMAIL_TAKEN: 409,
  SEAT_UNAVAILABLE: 409,
  LIMIT_EXCEEDED: 409,
  NOT_ENOUGH_SEATS: 409,
  HOLD_PAYING: 409,
  HOLD_EXPIRED: 409,
  HOLD_CONFIRMED: 409,
  IDEMPOTENCY_KEY_MISSING: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  CANCELLATION_WINDOW_CLOSED: 409,
  NOT_CANCELLABLE: 409,
  WEBHOOK_SIGNATURE_INVALID: 400,
  TICKET_INVALID: 400,
  ALREADY_CHECKED_IN: 409,
  TICKET_VOID: 410,
  RATE_LIMITED: 429,
  NOT_YET_ADMITTED: 403,
  ADMISSION_LAPSED: 403,
  TOKEN_INVALID: 400,
  NO_WAITING_ROOM: 409,
  SHOW_CANCELLED: 409,
  SHOW_HAS_BOOKINGS: 409,
  SEATS_AVAILABLE: 409,
  OVERLOADED: 503,
  SHARD_UNAVAILABLE: 503,
  MOVE_IN_PROGRESS: 409,
  NOT_READY: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  path: string;
  message: string;
}

/** A failure the caller can act on; anything else thrown is a 500 with an opaque body. */
export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extensions: Record<string, unknown> = {},
    /** Another status than the code's, where HTTP needs one the closed set of codes has none for (415). */
    status: number = ERROR_STATUS[code],
  ) {
    // A refusal the caller can act on is an answer, not a fault: no stack trace to capture
    // (tens of microseconds each, and "not yet admitted" is answered thousands of times a second).
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
  }
}

/**
 * A refusal as plain data, for hot paths where refusing is the common answer
 * (most holds of a hot show are 409s): no Error, no stack trace, no throw.
 */
export interface Refusal {
  code: ErrorCode;
  status: number;
  message: string;
  extensions: Record<string, unknown>;
}

export function validationFailed(message: string, errors: FieldError[] = []): DomainError {
  return new DomainError('VALIDATION_FAILED', message, errors.length ? { errors } : {});
}

/**
 * A body in a media type the route does not take: 415, with VALIDATION_FAILED
 * since the contract's closed set of codes has none for it (as the HTTP layer's 431).
 */
export function unsupportedMediaType(expected: string): DomainError {
  return new DomainError('VALIDATION_FAILED', `the body must be sent as ${expected} (Content-Type: ${expected})`, {}, 415);
}

export function notFound(what: string): DomainError {
  return new DomainError('NOT_FOUND', `${what} not found`);
}
