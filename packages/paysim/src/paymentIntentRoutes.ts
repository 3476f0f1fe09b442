// /v1/payment_intents: create (and confirm in the same call), confirm, retrieve, list.
import type { FastifyInstance } from 'fastify';
import { confirmPaymentIntent } from './charging.js';
import type { SimContext } from './context.js';
import { invalidParam, noSuch, stateError } from './errors.js';
import { Params, type Form } from './form.js';
import { runMutation } from './mutation.js';
import { paymentIntentObject, snapshot } from './objects.js';
import { listPage, pageRequest } from './pagination.js';
import { TEST_PAYMENT_METHODS, type TestPaymentMethod } from './paymentMethods.js';

// Every parameter real Stripe accepts here; those the simulator does not model are accepted and ignored.
const CREATE_PARAMS = new Set([
  'amount', 'currency', 'allowed_payment_method_types', 'amount_details', 'application_fee_amount',
  'automatic_payment_methods', 'capture_method', 'confirm', 'confirmation_method', 'confirmation_token', 'customer',
  'customer_account', 'description', 'error_on_requires_action', 'excluded_payment_method_types', 'expand', 'hooks',
  'mandate', 'mandate_data', 'metadata', 'off_session', 'on_behalf_of', 'payment_details', 'payment_method',
  'payment_method_configuration', 'payment_method_data', 'payment_method_options', 'payment_method_types',
  'radar_options', 'receipt_email', 'return_url', 'setup_future_usage', 'shipping', 'statement_descriptor',
  'statement_descriptor_suffix', 'transfer_data', 'transfer_group', 'use_stripe_sdk',
]);
const CONFIRM_PARAMS = new Set([
  'allowed_payment_method_types', 'amount_details', 'amount_to_confirm', 'capture_method', 'confirmation_token',
  'error_on_requires_action', 'excluded_payment_method_types', 'expand', 'hooks', 'mandate', 'mandate_data',
  'off_session', 'payment_details', 'payment_method', 'payment_method_data', 'payment_method_options', 'radar_options',
  'receipt_email', 'return_url', 'setup_future_usage', 'shipping', 'use_stripe_sdk',
]);

function testMethod(id: string): TestPaymentMethod {
  const method = TEST_PAYMENT_METHODS.get(id);
  if (!method) throw noSuch('PaymentMethod', id, 'payment_method');
  return method;
}

function captureMethod(params: Params): 'automatic' | 'automatic_async' {
  const value = params.oneOf('capture_method', ['automatic', 'automatic_async', 'manual'] as const);
  if (value === 'manual') throw invalidParam('The payment simulator supports only automatic capture.', 'parameter_invalid_string', 'capture_method');
  return value ?? 'automatic_async';
}

export default async function paymentIntentRoutes(api: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  api.post('/payment_intents', (request, reply) => runMutation(ctx, request, reply, async (ref) => {
    // Validation first: a request that fails it commits nothing and keeps no idempotent answer.
    const params = new Params((request.body ?? {}) as Form).allowOnly(CREATE_PARAMS);
    const amount = params.amount('amount');
    if (amount === null) throw invalidParam('Missing required param: amount.', 'parameter_missing', 'amount');
    const currency = params.requiredString('currency').toLowerCase();
    if (!/^[a-z]{3}$/.test(currency)) throw invalidParam(`Invalid currency: ${currency}.`, 'parameter_invalid_string', 'currency');
    const methodId = params.string('payment_method');
    const method = methodId === null ? null : testMethod(methodId);
    const confirm = params.boolean('confirm');
    if (confirm && method === null) {
      throw invalidParam('You cannot confirm this PaymentIntent because it\'s missing a payment method.', 'parameter_missing', 'payment_method');
    }
    const pi = paymentIntentObject({
      amount, currency, metadata: params.metadata(), description: params.string('description'),
      paymentMethod: methodId, receiptEmail: params.string('receipt_email'), captureMethod: captureMethod(params),
    });
    ctx.store.savePaymentIntent(pi);
    if (confirm && method && methodId) return confirmPaymentIntent(ctx, pi, methodId, method, ref);
    return { status: 200, body: snapshot(pi) };
  }));

  api.post<{ Params: { id: string } }>('/payment_intents/:id/confirm', (request, reply) => runMutation(ctx, request, reply, async (ref) => {
    const pi = ctx.store.paymentIntents.get(request.params.id);
    if (!pi) throw noSuch('payment_intent', request.params.id);
    const params = new Params((request.body ?? {}) as Form).allowOnly(CONFIRM_PARAMS);
    const methodId = params.string('payment_method') ?? pi.payment_method;
    if (methodId === null) {
      throw invalidParam('You cannot confirm this PaymentIntent because it\'s missing a payment method.', 'parameter_missing', 'payment_method');
    }
    const method = testMethod(methodId);
    if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') {
      throw stateError(
        `You cannot confirm this PaymentIntent because it has a status of ${pi.status}.`,
        'payment_intent_unexpected_state',
      );
    }
    return confirmPaymentIntent(ctx, pi, methodId, method, ref);
  }));

  api.get<{ Params: { id: string } }>('/payment_intents/:id', async (request) => {
    const pi = ctx.store.paymentIntents.get(request.params.id);
    if (!pi) throw noSuch('payment_intent', request.params.id);
    return pi;
  });

  api.get('/payment_intents', async (request) =>
    listPage(ctx.store.paymentIntents, pageRequest(request.query as Record<string, unknown>), '/v1/payment_intents', 'payment_intent'));
}
