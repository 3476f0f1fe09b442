// The payment provider as the booking flow sees it: Stripe PaymentIntents and
// Refunds through the official SDK, every call with an idempotency key, every
// answer reduced to what we know for sure. Real Stripe and the bundled simulator
// differ only in configuration.
import Stripe from 'stripe';

/** Why a payment failed, in words a buyer can act on: e.g. card_declined, unknown_payment_method. */
export interface PaymentFailure {
  code: string;
  message: string;
}

export type ChargeOutcome =
  | { kind: 'succeeded'; paymentIntentId: string }
  | { kind: 'failed'; paymentIntentId: string | null; failure: PaymentFailure }
  /** The answer was lost, late or not definitive: reconcile later with the same key. */
  | { kind: 'unknown'; reason: string };

export type RefundOutcome =
  | { kind: 'succeeded'; refundId: string }
  /** Not answered, or not yet: ask again later with the same key. */
  | { kind: 'retry'; reason: string }
  /** Refused for good (nothing was charged, no such PaymentIntent, more than was charged): asking again cannot help. */
  | { kind: 'refused'; code: string; reason: string };

/** A PaymentIntent as the provider itself holds it: what a webhook is checked against. */
export interface ProviderPaymentIntent {
  id: string;
  status: string;
  amount: number;
  /** Lower case, as the provider writes it. */
  currency: string;
  metadata: Record<string, string>;
  /** What its status says about the payment (outcomeOf); `unknown` when nothing definitive yet. */
  outcome: ChargeOutcome;
}

/** A refund as the provider itself holds it. */
export interface ProviderRefund {
  id: string;
  status: string | null;
  amount: number;
  paymentIntentId: string | null;
  metadata: Record<string, string>;
}

/** How far a webhook's signed timestamp may be from our clock, either way (Stripe's own default for the past). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export interface ChargeRequest {
  attemptId: string;
  bookingId: string;
  holdId: string;
  /** The show, when the attempt's id names it: in the PaymentIntent's metadata, so webhooks and the reconciler find its shard. */
  showId?: string | null;
  amount: number;
  currency: string;
  paymentMethod: string;
}

export interface PaymentProvider {
  /** Creates and confirms a PaymentIntent keyed by the attempt id; repeating it never charges twice. */
  charge(c: ChargeRequest, timeoutMs: number): Promise<ChargeOutcome>;
  refund(r: { refundId: string; bookingId: string; paymentIntentId: string; amount: number }, timeoutMs: number): Promise<RefundOutcome>;
  /** The provider's own record of a PaymentIntent; null when it has none. Throws when it could not be asked. */
  retrievePaymentIntent(id: string, timeoutMs: number): Promise<ProviderPaymentIntent | null>;
  /** The provider's own record of a refund; null when it has none. Throws when it could not be asked. */
  retrieveRefund(id: string, timeoutMs: number): Promise<ProviderRefund | null>;
  /**
   * Verifies a webhook's Stripe-Signature (the HMAC, and a timestamp at most
   * WEBHOOK_TOLERANCE_SECONDS off either way); the signed text, not yet known to be
   * an event. Throws when it does not verify.
   */
  verifyWebhook(rawBody: Buffer, signature: string): string;
}

export interface StripeSettings {
  secretKey: string;
  /** e.g. http://127.0.0.1:12111 for the simulator; null for Stripe itself. */
  apiUrl: string | null;
  webhookSecret: string;
}

/** What a PaymentIntent that did not succeed says about why. */
function failureOf(status: string, lastError: { code?: string | null; message?: string | null } | null | undefined): PaymentFailure {
  if (lastError?.code) return { code: lastError.code, message: lastError.message || 'The payment was refused.' };
  if (status === 'canceled') return { code: 'payment_canceled', message: 'The payment was canceled.' };
  return { code: 'payment_failed', message: 'The payment was refused.' };
}

/**
 * What a PaymentIntent's status says about the payment: the one mapping, for the
 * answer to a charge and for a PaymentIntent read back (a webhook, src/app/webhooks.ts).
 */
function outcomeOf(pi: { id: string; status: string; last_payment_error?: { code?: string | null; message?: string | null } | null }): ChargeOutcome {
  if (pi.status === 'succeeded') return { kind: 'succeeded', paymentIntentId: pi.id };
  if (pi.status === 'requires_payment_method' || pi.status === 'canceled') {
    return { kind: 'failed', paymentIntentId: pi.id, failure: failureOf(pi.status, pi.last_payment_error) };
  }
  return { kind: 'unknown', reason: `payment intent ${pi.status}` };
}

/**
 * A request the provider refused outright. A payment method it does not know
 * (mistyped, or from another account) is the one a buyer can fix.
 */
function refusedRequest(err: unknown, paymentMethod: string): PaymentFailure {
  const e = err as { code?: string; param?: string; message?: string };
  if (e.code === 'resource_missing' && e.param === 'payment_method') {
    return { code: 'unknown_payment_method', message: `The payment method ${JSON.stringify(paymentMethod)} is not known to the payment provider.` };
  }
  return { code: 'payment_refused', message: e.message || 'The payment provider refused the request.' };
}

function errorType(err: unknown): string {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : 'unknown';
}

/**
 * The provider answered that there is no such object (404, or 400 for an id it
 * cannot even parse), as opposed to not answering: asking again cannot help.
 */
function isMissing(err: unknown): boolean {
  return errorType(err) === 'StripeInvalidRequestError';
}

/** The timestamp the SDK checks: the last `t=` of the header. */
function signedAt(header: string): number {
  let t = Number.NaN;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') t = Number.parseInt(value ?? '', 10);
  }
  return t;
}

export class StripeProvider implements PaymentProvider {
  private readonly stripe: Stripe;

  constructor(private readonly settings: StripeSettings) {
    const url = settings.apiUrl ? new URL(settings.apiUrl) : null;
    this.stripe = new Stripe(settings.secretKey, {
      // Retries are ours (reconciliation with the same key), not the SDK's.
      maxNetworkRetries: 0,
      timeout: 30_000,
      ...(url
        ? { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol === 'https:' ? 'https' : 'http' }
        : {}),
    });
  }

  async charge(c: ChargeRequest, timeoutMs: number): Promise<ChargeOutcome> {
    try {
      const pi = await this.stripe.paymentIntents.create(
        {
          amount: c.amount,
          currency: c.currency.toLowerCase(),
          payment_method: c.paymentMethod,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          confirm: true,
          metadata: { booking_id: c.bookingId, hold_id: c.holdId, attempt_id: c.attemptId, ...(c.showId ? { show_id: c.showId } : {}) },
        },
        { idempotencyKey: c.attemptId, timeout: timeoutMs },
      );
      return outcomeOf(pi);
    } catch (err) {
      const type = errorType(err);
      // A decline, or a request the provider refused outright: nothing was charged.
      if (type === 'StripeCardError') {
        const piId = (err as { payment_intent?: { id?: string } }).payment_intent?.id ?? null;
        const e = err as { code?: string; message?: string };
        return { kind: 'failed', paymentIntentId: piId, failure: { code: e.code ?? 'card_declined', message: e.message || 'Your card was declined.' } };
      }
      if (type === 'StripeInvalidRequestError') return { kind: 'failed', paymentIntentId: null, failure: refusedRequest(err, c.paymentMethod) };
      // Timeouts, lost connections, 5xx, a key still in flight: we do not know.
      return { kind: 'unknown', reason: `${type}: ${(err as Error).message}` };
    }
  }

  async refund(r: { refundId: string; bookingId: string; paymentIntentId: string; amount: number }, timeoutMs: number): Promise<RefundOutcome> {
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: r.paymentIntentId,
          amount: r.amount,
          metadata: { booking_id: r.bookingId, payment_intent: r.paymentIntentId, refund_id: r.refundId },
        },
        { idempotencyKey: r.refundId, timeout: timeoutMs },
      );
      return { kind: 'succeeded', refundId: refund.id };
    } catch (err) {
      const reason = `${errorType(err)}: ${(err as Error).message}`;
      // A 400/404 answer to a refund is the provider's decision on the request
      // itself; 409 (key in use), 429, 5xx and lost answers are worth another try.
      if (errorType(err) === 'StripeInvalidRequestError') {
        return { kind: 'refused', code: (err as { code?: string }).code ?? 'invalid_request', reason };
      }
      return { kind: 'retry', reason };
    }
  }

  async retrievePaymentIntent(id: string, timeoutMs: number): Promise<ProviderPaymentIntent | null> {
    try {
      const pi = await this.stripe.paymentIntents.retrieve(id, {}, { timeout: timeoutMs });
      return {
        id: pi.id, status: pi.status, amount: pi.amount, currency: pi.currency, metadata: pi.metadata ?? {}, outcome: outcomeOf(pi),
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async retrieveRefund(id: string, timeoutMs: number): Promise<ProviderRefund | null> {
    try {
      const r = await this.stripe.refunds.retrieve(id, {}, { timeout: timeoutMs });
      const pi = typeof r.payment_intent === 'string' ? r.payment_intent : r.payment_intent?.id ?? null;
      return { id: r.id, status: r.status, amount: r.amount, paymentIntentId: pi, metadata: r.metadata ?? {} };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  verifyWebhook(rawBody: Buffer, signature: string): string {
    const { signature: verifier } = this.stripe.webhooks;
    if (!verifier) throw new Error('this build of the Stripe SDK cannot verify webhook signatures');
    verifier.verifyHeader(rawBody, signature, this.settings.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
    // The SDK refuses only timestamps too old; one far in the future is refused here too.
    const skew = Math.abs(Date.now() / 1000 - signedAt(signature));
    if (!(skew <= WEBHOOK_TOLERANCE_SECONDS)) throw new Error('the signed timestamp is more than 5 minutes off');
    return rawBody.toString('utf8');
  }
}
