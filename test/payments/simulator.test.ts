// The payment simulator through the official Stripe SDK: the test payment
// methods, lost answers, idempotency, auth and errors.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { rejection, eventually, sdkClient, startSimulator, type RunningSimulator } from './simulatorHarness.js';

let t: RunningSimulator;
beforeEach(async () => { t = await startSimulator(); });
afterEach(async () => { await t.close(); });

const booking = { booking_id: 'bk_1', hold_id: 'hold_1' };
const pay = (payment_method: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}): Stripe.PaymentIntentCreateParams => ({
  amount: 2500, currency: 'eur', payment_method, confirm: true, metadata: booking, ...extra,
});

describe('payment methods', () => {
  it('pm_card_visa succeeds with Stripe\'s PaymentIntent shape', async () => {
    const pi = await t.stripe.paymentIntents.create(pay('pm_card_visa'));
    expect(pi).toMatchObject({
      object: 'payment_intent', status: 'succeeded', amount: 2500, amount_received: 2500, currency: 'eur',
      metadata: booking, livemode: false, last_payment_error: null, payment_method: 'pm_card_visa',
    });
    expect(pi.id).toMatch(/^pi_[A-Za-z0-9]{24}$/);
    expect(pi.latest_charge).toMatch(/^ch_/);
    expect(pi.lastResponse.requestId).toMatch(/^req_/);
    expect(await t.stripe.paymentIntents.retrieve(pi.id)).toMatchObject({ id: pi.id, status: 'succeeded' });
  });

  it('pm_card_declined is a 402 card_error and leaves a listable PaymentIntent', async () => {
    const err = await rejection(t.stripe.paymentIntents.create(pay('pm_card_declined')));
    expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
    const card = err as Stripe.errors.StripeCardError;
    expect(card).toMatchObject({ statusCode: 402, rawType: 'card_error', code: 'card_declined', decline_code: 'generic_decline' });
    expect(card.charge).toMatch(/^ch_/);
    const failed = card.payment_intent as Stripe.PaymentIntent;
    expect(failed).toMatchObject({ object: 'payment_intent', status: 'requires_payment_method', metadata: booking });
    expect(failed.last_payment_error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' });

    const list = await t.stripe.paymentIntents.list();
    expect(list.data.map((p) => p.id)).toEqual([failed.id]);
    expect(list.data[0]).toMatchObject({ status: 'requires_payment_method', last_payment_error: { code: 'card_declined' } });
  });

  it('pm_card_slow succeeds after about 3 s; a concurrent request with the same key gets 409 meanwhile', async () => {
    const started = Date.now();
    const first = t.stripe.paymentIntents.create(pay('pm_card_slow'), { idempotencyKey: 'slow-1' });
    await new Promise((r) => setTimeout(r, 50));
    const second = await rejection(t.stripe.paymentIntents.create(pay('pm_card_slow'), { idempotencyKey: 'slow-1' }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(second).toBeInstanceOf(Stripe.errors.StripeError);
    expect(second).toMatchObject({ statusCode: 409, code: 'idempotency_key_in_use', rawType: 'invalid_request_error' });
    // While it processes, the PaymentIntent is visible as processing.
    expect((await t.stripe.paymentIntents.list()).data[0]?.status).toBe('processing');

    const pi = await first;
    const elapsed = Date.now() - started;
    expect(pi.status).toBe('succeeded');
    expect(elapsed).toBeGreaterThanOrEqual(2900);
    expect(elapsed).toBeLessThan(4500);
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(1);
  });

  it('pm_card_timeout_succeeds: the first answer is lost, a retry with the same key gets the success at once', async () => {
    const err = await rejection(t.impatient(700).paymentIntents.create(pay('pm_card_timeout_succeeds'), { idempotencyKey: 'to-ok' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    // The client gave up and closed its socket; the simulator lets go of it.
    await eventually(() => t.sim.ctx.held.size === 0);

    const started = Date.now();
    const pi = await t.stripe.paymentIntents.create(pay('pm_card_timeout_succeeds'), { idempotencyKey: 'to-ok' });
    expect(Date.now() - started).toBeLessThan(300);
    expect(pi).toMatchObject({ status: 'succeeded', amount_received: 2500, metadata: booking });
    expect(pi.lastResponse.headers['idempotent-replayed']).toBe('true');
    const all = await t.stripe.paymentIntents.list();
    expect(all.data.map((p) => p.id)).toEqual([pi.id]);
  });

  it('pm_card_timeout_fails: the first answer is lost, the retry gets the decline', async () => {
    const err = await rejection(t.impatient(700).paymentIntents.create(pay('pm_card_timeout_fails'), { idempotencyKey: 'to-fail' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const retry = await rejection(t.stripe.paymentIntents.create(pay('pm_card_timeout_fails'), { idempotencyKey: 'to-fail' }));
    expect(retry).toBeInstanceOf(Stripe.errors.StripeCardError);
    const pi = (retry as Stripe.errors.StripeCardError).payment_intent as Stripe.PaymentIntent;
    expect(pi.status).toBe('requires_payment_method');
    expect((await t.stripe.paymentIntents.retrieve(pi.id)).status).toBe('requires_payment_method');
  });

  it('a retry while a lost-answer payment is still processing gets 409', async () => {
    await t.close();
    t = await startSimulator({ timing: { commitDelayMs: 600 } });
    const lost = rejection(t.impatient(1500).paymentIntents.create(pay('pm_card_timeout_succeeds'), { idempotencyKey: 'busy' }));
    await new Promise((r) => setTimeout(r, 100));
    const early = await rejection(t.stripe.paymentIntents.create(pay('pm_card_timeout_succeeds'), { idempotencyKey: 'busy' }));
    expect(early).toMatchObject({ statusCode: 409, code: 'idempotency_key_in_use' });
    await new Promise((r) => setTimeout(r, 700));
    const pi = await t.stripe.paymentIntents.create(pay('pm_card_timeout_succeeds'), { idempotencyKey: 'busy' });
    expect(pi.status).toBe('succeeded');
    expect(await lost).toBeInstanceOf(Stripe.errors.StripeConnectionError);
  });

  it('an unknown payment method is a 400 resource_missing that creates nothing', async () => {
    const err = await rejection(t.stripe.paymentIntents.create(pay('pm_card_unheard_of')));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'payment_method' });
    expect((await t.stripe.paymentIntents.list()).data).toEqual([]);
  });

  it('create without confirm, then confirm', async () => {
    const pi = await t.stripe.paymentIntents.create({ amount: 900, currency: 'EUR', payment_method: 'pm_card_visa' });
    expect(pi).toMatchObject({ status: 'requires_confirmation', currency: 'eur', amount_received: 0 });
    const done = await t.stripe.paymentIntents.confirm(pi.id);
    expect(done).toMatchObject({ id: pi.id, status: 'succeeded', amount_received: 900 });
    const again = await rejection(t.stripe.paymentIntents.confirm(pi.id));
    expect(again).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  });

  it('refuses bad parameters the way Stripe does', async () => {
    expect(await rejection(t.stripe.paymentIntents.create({ currency: 'eur' } as Stripe.PaymentIntentCreateParams)))
      .toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'amount' });
    expect(await rejection(t.stripe.paymentIntents.create({ amount: 10, currency: 'eur', surprise: 1 } as Stripe.PaymentIntentCreateParams)))
      .toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'surprise' });
    expect(await rejection(t.stripe.paymentIntents.retrieve('pi_missing')))
      .toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});

describe('idempotency', () => {
  it('the same key and parameters replay the first answer, with the same id', async () => {
    const first = await t.stripe.paymentIntents.create(pay('pm_card_visa'), { idempotencyKey: 'k1' });
    const again = await t.stripe.paymentIntents.create(pay('pm_card_visa'), { idempotencyKey: 'k1' });
    expect(again.id).toBe(first.id);
    expect(again).toEqual(first);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(1);
  });

  it('a declined answer is replayed too, status and body', async () => {
    const a = await rejection(t.stripe.paymentIntents.create(pay('pm_card_declined'), { idempotencyKey: 'k-dec' })) as Stripe.errors.StripeCardError;
    const b = await rejection(t.stripe.paymentIntents.create(pay('pm_card_declined'), { idempotencyKey: 'k-dec' })) as Stripe.errors.StripeCardError;
    expect(b.statusCode).toBe(402);
    expect(b.raw).toMatchObject({ charge: a.charge, payment_intent: { id: (a.payment_intent as Stripe.PaymentIntent).id } });
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(1);
  });

  it('the same key with other parameters is an idempotency_error', async () => {
    await t.stripe.paymentIntents.create(pay('pm_card_visa'), { idempotencyKey: 'k2' });
    const err = await rejection(t.stripe.paymentIntents.create(pay('pm_card_visa', { amount: 2600 }), { idempotencyKey: 'k2' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(err).toMatchObject({ statusCode: 400, rawType: 'idempotency_error' });
  });

  it('a request that failed validation keeps no answer: the key stays usable', async () => {
    await rejection(t.stripe.paymentIntents.create(pay('pm_nope'), { idempotencyKey: 'k3' }));
    // Other parameters with the same key are fine, since the first never ran.
    const pi = await t.stripe.paymentIntents.create(pay('pm_card_visa'), { idempotencyKey: 'k3' });
    expect(pi.status).toBe('succeeded');
  });

  it('keys are scoped per API key', async () => {
    await t.close();
    t = await startSimulator({ apiKeys: ['sk_test_sim', 'sk_test_other'] });
    const other = sdkClient(t.port, 5000, 'sk_test_other');
    const a = await t.stripe.paymentIntents.create(pay('pm_card_visa'), { idempotencyKey: 'shared' });
    const b = await other.paymentIntents.create(pay('pm_card_visa', { amount: 100 }), { idempotencyKey: 'shared' });
    expect(b.id).not.toBe(a.id);
    expect(b.amount).toBe(100);
  });
});

describe('the API around it', () => {
  it('a wrong or missing key is a 401', async () => {
    const wrong = sdkClient(t.port, 5000, 'sk_test_wrong_key_123');
    const err = await rejection(wrong.paymentIntents.list());
    expect(err).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(err).toMatchObject({ statusCode: 401 });
    const bare = await fetch(`${t.baseUrl}/v1/payment_intents`);
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('takes bracket-encoded forms from any client (curl style: Basic auth, expand[])', async () => {
    const res = await fetch(`${t.baseUrl}/v1/payment_intents`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('sk_test_sim:').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=700&currency=usd&payment_method=pm_card_visa&confirm=true&metadata[booking_id]=bk_9&expand[]=latest_charge',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'succeeded', amount: 700, metadata: { booking_id: 'bk_9' } });
  });

  it('an unknown route is Stripe\'s 404', async () => {
    const res = await fetch(`${t.baseUrl}/v1/charges_and_more`, { headers: { authorization: 'Bearer sk_test_sim' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('reports health', async () => {
    await t.stripe.paymentIntents.create(pay('pm_card_visa'));
    const res = await fetch(`${t.baseUrl}/_sim/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, payment_intents: 1, refunds: 0 });
  });
});
