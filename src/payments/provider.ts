// The payment provider as the booking flow sees it: Stripe PaymentIntents and
// Refunds through the official SDK, every call with an idempotency key, every
// answer reduced to what we know for sure. Real Stripe and the bundled simulator
// differ only in configuration.
import Stripe from 'stripe';

export type ChargeOutcome =
  | { kind: 'succeeded'; paymentIntentId: string }
  | { kind: 'failed'; paymentIntentId: string | null; reason: string }
  /** The answer was lost, late or not definitive: reconcile later with the same key. */
  | { kind: 'unknown'; reason: string };

export type RefundOutcome = { kind: 'succeeded'; refundId: string } | { kind: 'retry'; reason: string };

export interface ChargeRequest {
  attemptId: string;
  bookingId: string;
  holdId: string;
  amount: number;
  currency: string;
  paymentMethod: string;
}

export interface PaymentProvider {
  /** Creates and confirms a PaymentIntent keyed by the attempt id; repeating it never charges twice. */
  charge(c: ChargeRequest, timeoutMs: number): Promise<ChargeOutcome>;
  refund(r: { refundId: string; bookingId: string; paymentIntentId: string; amount: number }, timeoutMs: number): Promise<RefundOutcome>;
  /** Verifies a webhook's Stripe-Signature; throws when it does not verify. */
  verifyWebhook(rawBody: Buffer, signature: string): Stripe.Event;
}

export interface StripeSettings {
  secretKey: string;
  /** e.g. http://127.0.0.1:12111 for the simulator; null for Stripe itself. */
  apiUrl: string | null;
  webhookSecret: string;
}

function errorType(err: unknown): string {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : 'unknown';
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
          metadata: { booking_id: c.bookingId, hold_id: c.holdId, attempt_id: c.attemptId },
        },
        { idempotencyKey: c.attemptId, timeout: timeoutMs },
      );
      if (pi.status === 'succeeded') return { kind: 'succeeded', paymentIntentId: pi.id };
      if (pi.status === 'requires_payment_method' || pi.status === 'canceled') {
        return { kind: 'failed', paymentIntentId: pi.id, reason: pi.last_payment_error?.code ?? pi.status };
      }
      return { kind: 'unknown', reason: `payment intent ${pi.status}` };
    } catch (err) {
      const type = errorType(err);
      // A decline, or a request the provider refused outright: nothing was charged.
      if (type === 'StripeCardError') {
        const piId = (err as { payment_intent?: { id?: string } }).payment_intent?.id ?? null;
        return { kind: 'failed', paymentIntentId: piId, reason: (err as { code?: string }).code ?? 'card_declined' };
      }
      if (type === 'StripeInvalidRequestError') return { kind: 'failed', paymentIntentId: null, reason: (err as Error).message };
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
      return { kind: 'retry', reason: `${errorType(err)}: ${(err as Error).message}` };
    }
  }

  verifyWebhook(rawBody: Buffer, signature: string): Stripe.Event {
    return this.stripe.webhooks.constructEvent(rawBody, signature, this.settings.webhookSecret);
  }
}
