// Chaos settings of the payment simulator: injected 5xx before anything is
// committed, lost answers after commit, added latency, runtime control.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { chaosFromEnv } from '@boxoffice/paysim';
import { rejection, startSimulator, type RunningSimulator } from './simulatorHarness.js';

let t: RunningSimulator;
beforeEach(async () => { t = await startSimulator(); });
afterEach(async () => { await t.close(); });

async function setChaos(settings: Record<string, unknown>): Promise<Response> {
  return fetch(`${t.baseUrl}/_sim/chaos`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(settings) });
}

const params: Stripe.PaymentIntentCreateParams = { amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true };

describe('chaos', () => {
  it('error_rate 1 fails every request with a 500 api_error and creates nothing', async () => {
    expect((await setChaos({ error_rate: 1 })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const err = await rejection(t.stripe.paymentIntents.create(params, { idempotencyKey: `k${i}` }));
      expect(err).toBeInstanceOf(Stripe.errors.StripeAPIError);
      expect(err).toMatchObject({ statusCode: 500, rawType: 'api_error' });
    }
    await setChaos({ error_rate: 0 });
    expect((await t.stripe.paymentIntents.list()).data).toEqual([]);
    expect(t.sim.ctx.store.events.size).toBe(0);
    // Nothing ran, so the same key may now go through.
    expect((await t.stripe.paymentIntents.create(params, { idempotencyKey: 'k0' })).status).toBe('succeeded');
  });

  it('timeout_after_commit_rate 1 commits the charge and loses the first answer of any method', async () => {
    await setChaos({ timeout_after_commit_rate: 1 });
    const err = await rejection(t.impatient(500).paymentIntents.create(params, { idempotencyKey: 'lost' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    await setChaos({ timeout_after_commit_rate: 0 });
    const pi = await t.stripe.paymentIntents.create(params, { idempotencyKey: 'lost' });
    expect(pi.status).toBe('succeeded');
    expect(pi.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(1);
  });

  it('latency_ms slows every request down', async () => {
    await setChaos({ latency_ms: 250 });
    const started = Date.now();
    await t.stripe.paymentIntents.list();
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('reads and validates settings at runtime', async () => {
    expect(await (await fetch(`${t.baseUrl}/_sim/chaos`)).json()).toMatchObject({ error_rate: 0, webhook_reorder: false });
    const bad = await setChaos({ error_rate: 2, nonsense: true });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/error_rate.*nonsense|nonsense.*error_rate/);
    const ok = await setChaos({ webhook_delay_ms: 50, webhook_reorder: true });
    expect(await ok.json()).toMatchObject({ webhook_delay_ms: 50, webhook_reorder: true, error_rate: 0 });
  });

  it('reads PAYSIM_* settings from the environment, refusing malformed ones', () => {
    expect(chaosFromEnv({ PAYSIM_ERROR_RATE: '0.1', PAYSIM_WEBHOOK_REORDER: 'true', PAYSIM_LATENCY_MS: '20' }))
      .toEqual({ error_rate: 0.1, webhook_reorder: true, latency_ms: 20 });
    expect(() => chaosFromEnv({ PAYSIM_ERROR_RATE: 'lots' })).toThrow(/error_rate/);
  });
});
