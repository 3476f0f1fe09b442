// /v1/refunds: create (against a PaymentIntent or its charge), retrieve, list.
import type { FastifyInstance } from 'fastify';
import type { SimContext } from './context.js';
import { invalidParam, noSuch } from './errors.js';
import { Params, type Form } from './form.js';
import { runMutation } from './mutation.js';
import type { PaymentIntent } from './objects.js';
import { listPage, pageRequest } from './pagination.js';
import { refundPaymentIntent } from './refunding.js';

const CREATE_PARAMS = new Set([
  'amount', 'charge', 'currency', 'customer', 'expand', 'instructions_email', 'metadata', 'origin', 'payment_intent',
  'reason', 'refund_application_fee', 'reverse_transfer',
]);
const REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

function refundedPaymentIntent(ctx: SimContext, params: Params): PaymentIntent {
  const piId = params.string('payment_intent');
  const chargeId = params.string('charge');
  if (piId === null && chargeId === null) {
    throw invalidParam('One of the following params should be provided for this request: payment_intent or charge.', 'parameter_missing', 'payment_intent');
  }
  if (piId !== null && chargeId !== null) {
    throw invalidParam('You may only specify one of these parameters: charge, payment_intent.', 'parameter_invalid_empty', 'charge');
  }
  if (piId !== null) {
    const pi = ctx.store.paymentIntents.get(piId);
    if (!pi) throw noSuch('payment_intent', piId, 'payment_intent');
    return pi;
  }
  const pi = ctx.store.paymentIntentOfCharge(chargeId as string);
  if (!pi) throw noSuch('charge', chargeId as string, 'charge');
  return pi;
}

export default async function refundRoutes(api: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  api.post('/refunds', (request, reply) => runMutation(ctx, request, reply, (ref) => {
    const params = new Params((request.body ?? {}) as Form).allowOnly(CREATE_PARAMS);
    const pi = refundedPaymentIntent(ctx, params);
    const input = { amount: params.amount('amount'), metadata: params.metadata(), reason: params.oneOf('reason', REASONS) };
    return refundPaymentIntent(ctx, pi, input, ref);
  }));

  api.get<{ Params: { id: string } }>('/refunds/:id', async (request) => {
    const refund = ctx.store.refunds.get(request.params.id);
    if (!refund) throw noSuch('refund', request.params.id);
    return refund;
  });

  api.get('/refunds', async (request) => {
    const query = request.query as Record<string, unknown>;
    const page = pageRequest(query);
    const filter = new Params(query);
    const piId = filter.string('payment_intent');
    const chargeId = filter.string('charge');
    if (piId !== null) return listPage(ctx.store.refundsOf(piId), page, '/v1/refunds', 'refund');
    if (chargeId !== null) {
      const pi = ctx.store.paymentIntentOfCharge(chargeId);
      return listPage(ctx.store.refundsOf(pi?.id ?? ''), page, '/v1/refunds', 'refund');
    }
    return listPage(ctx.store.refunds, page, '/v1/refunds', 'refund');
  });
}
