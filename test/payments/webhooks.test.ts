// Webhooks from the payment simulator: signed so that the official SDK's
// constructEvent verifies them, retried after failures, and (by chaos)
// duplicated, reordered and late.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { signatureHeader } from '@boxoffice/paysim';
import { startSimulator, startWebhookEndpoint, WEBHOOK_SECRET, type RunningSimulator, type WebhookEndpoint } from './simulatorHarness.js';
import type { SimulatorOptions } from '@boxoffice/paysim';

let t: RunningSimulator;
let hooks: WebhookEndpoint;
const verify = (raw: string, header: string | string[] | undefined) => Stripe.webhooks.constructEvent(raw, header as string, WEBHOOK_SECRET);

async function start(opts: SimulatorOptions = {}): Promise<void> {
  hooks = await startWebhookEndpoint();
  t = await startSimulator({ webhookUrl: hooks.url, webhook: { retryBaseMs: 20, concurrency: 1, reorderWindowMs: 150 }, ...opts });
}
afterEach(async () => {
  await t.close();
  await hooks.close();
});

async function pay(payment_method = 'pm_card_visa', bookingId = 'bk_1'): Promise<string> {
  try {
    return (await t.stripe.paymentIntents.create({
      amount: 1200, currency: 'eur', payment_method, confirm: true, metadata: { booking_id: bookingId },
    })).id;
  } catch (err) {
    return ((err as Stripe.errors.StripeCardError).payment_intent as Stripe.PaymentIntent).id;
  }
}

describe('signed delivery', () => {
  beforeEach(() => start());

  it('sends events that stripe.webhooks.constructEvent verifies', async () => {
    const ok = await pay('pm_card_visa');
    const failed = await pay('pm_card_declined');
    const refund = await t.stripe.refunds.create({ payment_intent: ok, metadata: { booking_id: 'bk_1' } });
    const got = await hooks.waitFor(3);
    const events = got.map((h) => verify(h.raw, h.headers['stripe-signature']));
    expect(events.map((e) => [e.type, (e.data.object as { id: string }).id])).toEqual([
      ['payment_intent.succeeded', ok],
      ['payment_intent.payment_failed', failed],
      ['refund.created', refund.id],
    ]);
    for (const e of events) {
      expect(e).toMatchObject({ object: 'event', livemode: false, pending_webhooks: 1 });
      expect(e.id).toMatch(/^evt_/);
      expect(typeof e.api_version).toBe('string');
      expect(Math.abs(e.created - Date.now() / 1000)).toBeLessThan(5);
    }
    expect(events[0]!.data.object).toMatchObject({ object: 'payment_intent', status: 'succeeded', metadata: { booking_id: 'bk_1' } });
    expect(events[1]!.data.object).toMatchObject({ status: 'requires_payment_method', last_payment_error: { code: 'card_declined' } });
    expect(events[2]!.data.object).toMatchObject({ object: 'refund', payment_intent: ok, amount: 1200 });
    expect(got[0]!.headers['content-type']).toMatch(/^application\/json/);
    expect(got[0]!.headers['stripe-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    // The same events are in the event log, newest first.
    const log = await t.stripe.events.list();
    expect(log.data.map((e) => e.id)).toEqual(events.map((e) => e.id).reverse());
  });

  it('a tampered body or a wrong secret does not verify', async () => {
    await pay();
    const [hook] = await hooks.waitFor(1);
    expect(() => verify(hook!.raw.replace('1200', '1300'), hook!.headers['stripe-signature'])).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => Stripe.webhooks.constructEvent(hook!.raw, hook!.headers['stripe-signature'] as string, 'whsec_other'))
      .toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('signs exactly as the SDK\'s own test helper does', () => {
    const payload = JSON.stringify({ id: 'evt_1', object: 'event' });
    const timestamp = 1_700_000_000;
    expect(signatureHeader(payload, WEBHOOK_SECRET, timestamp))
      .toBe(Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp }));
  });

  it('retries after a 500 until the endpoint takes it', async () => {
    hooks.answer = (_hook, index) => (index < 2 ? 500 : 200);
    await pay();
    const got = await hooks.waitFor(3);
    const ids = got.map((h) => verify(h.raw, h.headers['stripe-signature']).id);
    expect(new Set(ids).size).toBe(1);
    // Exponential backoff from a 20 ms base: 20 ms, then 40 ms (lower bounds; timers only run late).
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(15);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(35);
    await new Promise((r) => setTimeout(r, 200));
    expect(hooks.received).toHaveLength(3);
    expect(t.sim.ctx.webhooks.stats()).toMatchObject({ delivered: 1, failed_attempts: 2, given_up: 0, waiting: 0 });
  });

  it('gives up after the configured number of attempts', async () => {
    await t.close();
    await hooks.close();
    await start({ webhook: { retryBaseMs: 5, maxAttempts: 3, concurrency: 1 } });
    hooks.answer = () => 503;
    await pay();
    await hooks.waitFor(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(hooks.received).toHaveLength(3);
    expect(t.sim.ctx.webhooks.stats()).toMatchObject({ delivered: 0, failed_attempts: 3, given_up: 1 });
  });
});

describe('the endpoint', () => {
  it('can be set after start (e.g. once the service knows its port)', async () => {
    hooks = await startWebhookEndpoint();
    t = await startSimulator({ webhook: { retryBaseMs: 20 } });
    await pay('pm_card_visa', 'before');
    t.sim.ctx.webhooks.setEndpoint(hooks.url);
    const after = await pay('pm_card_visa', 'after');
    const [hook] = await hooks.waitFor(1);
    expect((verify(hook!.raw, hook!.headers['stripe-signature']).data.object as { id: string }).id).toBe(after);
    await new Promise((r) => setTimeout(r, 100));
    expect(hooks.received).toHaveLength(1);
  });
});

describe('chaos in delivery', () => {
  it('duplicates every event at webhook_duplicate_rate 1', async () => {
    await start();
    const res = await fetch(`${t.baseUrl}/_sim/chaos`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ webhook_duplicate_rate: 1 }),
    });
    expect(await res.json()).toMatchObject({ webhook_duplicate_rate: 1 });
    await pay('pm_card_visa', 'a');
    await pay('pm_card_visa', 'b');
    const got = await hooks.waitFor(4);
    const ids = got.map((h) => verify(h.raw, h.headers['stripe-signature']).id);
    expect(new Set(ids).size).toBe(2);
    for (const id of new Set(ids)) expect(ids.filter((x) => x === id)).toHaveLength(2);
  });

  it('delivers a batch out of order with webhook_reorder', async () => {
    await start({ chaos: { webhook_reorder: true }, seed: 7 });
    const made: string[] = [];
    for (let i = 0; i < 6; i++) made.push(await pay('pm_card_visa', `bk_${i}`));
    const got = await hooks.waitFor(6);
    const order = got.map((h) => (verify(h.raw, h.headers['stripe-signature']).data.object as { id: string }).id);
    expect([...order].sort()).toEqual([...made].sort());
    expect(order).not.toEqual(made);
  });

  it('without reorder the same events arrive in order', async () => {
    await start();
    const made: string[] = [];
    for (let i = 0; i < 6; i++) made.push(await pay('pm_card_visa', `bk_${i}`));
    const got = await hooks.waitFor(6);
    expect(got.map((h) => (JSON.parse(h.raw) as { data: { object: { id: string } } }).data.object.id)).toEqual(made);
  });

  it('delays deliveries with webhook_delay_ms', async () => {
    await start({ chaos: { webhook_delay_ms: 400 }, seed: 3 });
    const sent = Date.now();
    for (let i = 0; i < 5; i++) await pay('pm_card_visa', `bk_${i}`);
    const got = await hooks.waitFor(5);
    const latest = Math.max(...got.map((h) => h.at));
    expect(latest - sent).toBeGreaterThan(100);
    expect(latest - sent).toBeLessThan(1500);
  });
});
