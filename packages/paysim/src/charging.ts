// Confirming a PaymentIntent: the simulated card network decides by test
// payment method, the outcome is committed to the books (and announced by an
// event), and the answer says whether it must be lost on the way back.
import { newId, sleep } from './ids.js';
import type { SimContext } from './context.js';
import { recordEvent, type RequestRef } from './events.js';
import { snapshot, type PaymentError, type PaymentIntent } from './objects.js';
import type { Outcome } from './mutation.js';
import type { TestPaymentMethod } from './paymentMethods.js';

export async function confirmPaymentIntent(
  ctx: SimContext,
  pi: PaymentIntent,
  methodId: string,
  method: TestPaymentMethod,
  request: RequestRef,
): Promise<Outcome> {
  ctx.store.beginProcessing(pi);
  pi.payment_method = methodId;
  pi.status = 'processing';
  const processing = method.processing === 'slow' ? ctx.timing.slowMs : method.processing === 'commit' ? ctx.timing.commitDelayMs : 0;
  await sleep(processing);

  const charge = newId('ch');
  pi.latest_charge = charge;
  ctx.store.noteCharge(charge, pi.id);
  if (method.outcome === 'succeeded') {
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
    pi.last_payment_error = null;
    ctx.store.savePaymentIntent(pi);
    recordEvent(ctx.store, ctx.webhooks, 'payment_intent.succeeded', pi, request);
    return { status: 200, body: snapshot(pi), losesAnswer: method.losesFirstAnswer };
  }

  const decline = method.decline ?? { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };
  const error: PaymentError = {
    type: 'card_error',
    code: decline.code,
    decline_code: decline.decline_code,
    message: decline.message,
    charge,
    doc_url: `https://stripe.com/docs/error-codes/${decline.code.replace(/_/g, '-')}`,
    payment_method: { id: methodId, object: 'payment_method', type: 'card' },
  };
  // As at Stripe: a failed attempt leaves the intent waiting for another payment method.
  pi.status = 'requires_payment_method';
  pi.payment_method = null;
  pi.last_payment_error = error;
  ctx.store.savePaymentIntent(pi);
  recordEvent(ctx.store, ctx.webhooks, 'payment_intent.payment_failed', pi, request);
  return { status: 402, body: { error: { ...error, payment_intent: snapshot(pi) } }, losesAnswer: method.losesFirstAnswer };
}
