// Refunds and Stripe's list pagination in the payment simulator, through the official SDK.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { rejection, startSimulator, type RunningSimulator } from './simulatorHarness.js';

let t: RunningSimulator;
beforeEach(async () => { t = await startSimulator(); });
afterEach(async () => { await t.close(); });

async function paid(amount: number, bookingId = 'bk_1'): Promise<Stripe.PaymentIntent> {
  return t.stripe.paymentIntents.create({
    amount, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, metadata: { booking_id: bookingId, hold_id: 'h_1' },
  });
}

describe('refunds', () => {
  it('a refund without an amount refunds everything, once', async () => {
    const pi = await paid(2500);
    const refund = await t.stripe.refunds.create({ payment_intent: pi.id, metadata: { booking_id: 'bk_1' } });
    expect(refund).toMatchObject({
      object: 'refund', amount: 2500, currency: 'eur', payment_intent: pi.id, charge: pi.latest_charge,
      status: 'succeeded', metadata: { booking_id: 'bk_1' },
    });
    expect(refund.id).toMatch(/^re_/);
    expect(await t.stripe.refunds.retrieve(refund.id)).toEqual(refund);

    const again = await rejection(t.stripe.refunds.create({ payment_intent: pi.id }));
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(again).toMatchObject({ statusCode: 400, code: 'charge_already_refunded' });
  });

  it('partial refunds add up to at most what was charged', async () => {
    const pi = await paid(2500);
    await t.stripe.refunds.create({ payment_intent: pi.id, amount: 1000 });
    const over = await rejection(t.stripe.refunds.create({ payment_intent: pi.id, amount: 1501 }));
    expect(over).toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount' });
    const rest = await t.stripe.refunds.create({ payment_intent: pi.id });
    expect(rest.amount).toBe(1500);
    const list = await t.stripe.refunds.list({ payment_intent: pi.id });
    expect(list.data.map((r) => r.amount)).toEqual([1500, 1000]);
    expect(await rejection(t.stripe.refunds.create({ payment_intent: pi.id, amount: 1 })))
      .toMatchObject({ code: 'charge_already_refunded' });
  });

  it('refuses more than was charged, and a PaymentIntent that did not succeed', async () => {
    const pi = await paid(2500);
    expect(await rejection(t.stripe.refunds.create({ payment_intent: pi.id, amount: 3000 })))
      .toMatchObject({ statusCode: 400, code: 'amount_too_large' });
    const declined = (await rejection(t.stripe.paymentIntents.create({
      amount: 500, currency: 'eur', payment_method: 'pm_card_declined', confirm: true,
    })) as Stripe.errors.StripeCardError).payment_intent as Stripe.PaymentIntent;
    expect(await rejection(t.stripe.refunds.create({ payment_intent: declined.id })))
      .toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect(await rejection(t.stripe.refunds.create({ payment_intent: 'pi_nothing' })))
      .toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'payment_intent' });
    expect((await t.stripe.refunds.list()).data).toEqual([]);
  });

  it('a refund can name the charge instead of the PaymentIntent', async () => {
    const pi = await paid(800);
    const refund = await t.stripe.refunds.create({ charge: pi.latest_charge as string });
    expect(refund).toMatchObject({ payment_intent: pi.id, amount: 800 });
  });

  it('an idempotent refund retried is one refund', async () => {
    const pi = await paid(2500);
    const a = await t.stripe.refunds.create({ payment_intent: pi.id, amount: 700 }, { idempotencyKey: 'refund-bk_1' });
    const b = await t.stripe.refunds.create({ payment_intent: pi.id, amount: 700 }, { idempotencyKey: 'refund-bk_1' });
    expect(b.id).toBe(a.id);
    expect((await t.stripe.refunds.list()).data).toHaveLength(1);
  });
});

describe('lists', () => {
  it('pages newest first with limit and starting_after', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await paid(100 + i, `bk_${i}`)).id);
    const newestFirst = [...made].reverse();

    const first = await t.stripe.paymentIntents.list({ limit: 2 });
    expect(first).toMatchObject({ object: 'list', has_more: true, url: '/v1/payment_intents' });
    expect(first.data.map((p) => p.id)).toEqual(newestFirst.slice(0, 2));
    const second = await t.stripe.paymentIntents.list({ limit: 2, starting_after: first.data[1]!.id });
    expect(second.data.map((p) => p.id)).toEqual(newestFirst.slice(2, 4));
    expect(second.has_more).toBe(true);
    const third = await t.stripe.paymentIntents.list({ limit: 2, starting_after: second.data[1]!.id });
    expect(third.data.map((p) => p.id)).toEqual(newestFirst.slice(4));
    expect(third.has_more).toBe(false);

    const back = await t.stripe.paymentIntents.list({ limit: 2, ending_before: third.data[0]!.id });
    expect(back.data.map((p) => p.id)).toEqual(newestFirst.slice(2, 4));

    // The SDK's auto-pagination walks the same cursors.
    const all = await t.stripe.paymentIntents.list({ limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((p) => p.id)).toEqual(newestFirst);
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(5);
  });

  it('checks limit and cursors', async () => {
    expect(await rejection(t.stripe.paymentIntents.list({ limit: 101 }))).toMatchObject({ statusCode: 400, param: 'limit' });
    expect(await rejection(t.stripe.paymentIntents.list({ limit: 0 }))).toMatchObject({ statusCode: 400, param: 'limit' });
    expect(await rejection(t.stripe.paymentIntents.list({ starting_after: 'pi_gone' })))
      .toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'starting_after' });
  });

  it('lists refunds newest first, all or for one PaymentIntent', async () => {
    const a = await paid(1000, 'bk_a');
    const b = await paid(1000, 'bk_b');
    const r1 = await t.stripe.refunds.create({ payment_intent: a.id, amount: 100 });
    const r2 = await t.stripe.refunds.create({ payment_intent: b.id, amount: 200 });
    const r3 = await t.stripe.refunds.create({ payment_intent: a.id, amount: 300 });
    expect((await t.stripe.refunds.list()).data.map((r) => r.id)).toEqual([r3.id, r2.id, r1.id]);
    expect((await t.stripe.refunds.list({ payment_intent: a.id })).data.map((r) => r.id)).toEqual([r3.id, r1.id]);
    const page = await t.stripe.refunds.list({ limit: 1, starting_after: r3.id });
    expect(page.data.map((r) => r.id)).toEqual([r2.id]);
    expect(page.has_more).toBe(true);
  });
});
