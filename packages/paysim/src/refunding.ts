// Refunding a PaymentIntent's charge: at most what was received, in one or more
// parts, and only for a PaymentIntent that succeeded. The check and the write
// happen with no await between them, so concurrent refunds cannot overdraw.
import type { SimContext } from './context.js';
import { stateError } from './errors.js';
import { recordEvent, type RequestRef } from './events.js';
import { refundObject, snapshot, type Metadata, type PaymentIntent } from './objects.js';
import type { Outcome } from './mutation.js';

export interface RefundRequest {
  amount: number | null;
  metadata: Metadata;
  reason: string | null;
}

function money(amount: number, currency: string): string {
  return `${amount} ${currency.toUpperCase()} minor units`;
}

export function refundPaymentIntent(ctx: SimContext, pi: PaymentIntent, input: RefundRequest, request: RequestRef): Outcome {
  if (pi.status !== 'succeeded' || pi.latest_charge === null) {
    throw stateError(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, 'payment_intent_unexpected_state', 'payment_intent');
  }
  const remaining = pi.amount_received - ctx.store.refundedAmount(pi.id);
  if (remaining <= 0) throw stateError(`Charge ${pi.latest_charge} has already been refunded.`, 'charge_already_refunded');
  const amount = input.amount ?? remaining;
  if (amount > remaining) {
    throw stateError(
      `Refund amount (${money(amount, pi.currency)}) is greater than unrefunded amount on charge (${money(remaining, pi.currency)})`,
      'amount_too_large',
      'amount',
    );
  }
  const refund = refundObject(pi, amount, input.metadata, input.reason);
  ctx.store.addRefund(refund);
  recordEvent(ctx.store, ctx.webhooks, 'refund.created', refund, request);
  return { status: 200, body: snapshot(refund) };
}
