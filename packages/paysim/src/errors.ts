// Stripe's error envelope, {error: {type, code, message, param, …}}, with the HTTP
// status Stripe gives each kind. `stored` says whether an idempotent request that
// ended in this error keeps its answer: Stripe saves answers only once the
// endpoint has begun executing, never for a request that failed validation.
export type StripeErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

export interface StripeErrorBody {
  type: StripeErrorType;
  message: string;
  code?: string;
  param?: string;
  decline_code?: string;
  doc_url?: string;
  [extra: string]: unknown;
}

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    readonly stored: boolean,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }

  toJSON(): { error: StripeErrorBody } {
    return { error: this.body };
  }
}

function docUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;
}

/** A request that failed validation: 400, nothing stored. */
export function invalidParam(message: string, code: string, param?: string): StripeApiError {
  return new StripeApiError(400, { type: 'invalid_request_error', code, message, ...(param ? { param } : {}), doc_url: docUrl(code) }, false);
}

export function unknownParam(param: string): StripeApiError {
  return invalidParam(`Received unknown parameter: ${param}`, 'parameter_unknown', param);
}

export function missingParam(param: string): StripeApiError {
  return invalidParam(`Missing required param: ${param}.`, 'parameter_missing', param);
}

/** A lookup of an object that does not exist (404 on GET, 400 as a parameter). */
export function noSuch(kind: string, id: string, param?: string): StripeApiError {
  const status = param ? 400 : 404;
  return new StripeApiError(status, {
    type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`,
    ...(param ? { param } : {}), doc_url: docUrl('resource_missing'),
  }, false);
}

/** The endpoint ran and refused on the object's state: stored like any outcome. */
export function stateError(message: string, code: string, param?: string): StripeApiError {
  return new StripeApiError(400, { type: 'invalid_request_error', code, message, ...(param ? { param } : {}), doc_url: docUrl(code) }, true);
}

export function authenticationError(message: string): StripeApiError {
  return new StripeApiError(401, { type: 'invalid_request_error', message }, false);
}

export function idempotencyMismatch(key: string): StripeApiError {
  return new StripeApiError(400, {
    type: 'idempotency_error',
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  }, false);
}

export function idempotencyKeyInUse(key: string): StripeApiError {
  return new StripeApiError(409, {
    type: 'invalid_request_error', code: 'idempotency_key_in_use', doc_url: docUrl('idempotency_key_in_use'),
    message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
  }, false, { 'stripe-should-retry': 'true' });
}

/** A failure in front of the endpoint (chaos): nothing ran, so nothing is stored and a retry is safe. */
export function apiError(): StripeApiError {
  return new StripeApiError(500, {
    type: 'api_error',
    message: 'An unknown error occurred while processing your request. (simulated by the payment simulator\'s chaos settings)',
  }, false, { 'stripe-should-retry': 'true' });
}

export function routeNotFound(method: string, url: string): StripeApiError {
  return new StripeApiError(404, {
    type: 'invalid_request_error',
    message: `Unrecognized request URL (${method}: ${url}). The payment simulator implements only a subset of Stripe's API.`,
  }, false);
}
