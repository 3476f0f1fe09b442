// Configuration checked once at boot (src/config.ts): a service pointed at real
// Stripe never runs with the simulator's public webhook secret (API.md "Bookings
// and payment": it refuses to start without STRIPE_WEBHOOK_SECRET).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig: the webhook secret', () => {
  it('refuses a real STRIPE_SECRET_KEY without STRIPE_WEBHOOK_SECRET', () => {
    for (const key of ['sk_live_51Habc', 'sk_test_51Habc', 'rk_live_51Habc']) {
      expect(() => loadConfig({ STRIPE_SECRET_KEY: key }), key).toThrow(/STRIPE_WEBHOOK_SECRET/);
      expect(() => loadConfig({ STRIPE_SECRET_KEY: key, STRIPE_WEBHOOK_SECRET: '' }), key).toThrow(/STRIPE_WEBHOOK_SECRET/);
    }
  });

  it("refuses a real STRIPE_SECRET_KEY with the simulator's public whsec_sim", () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_live_51Habc', STRIPE_WEBHOOK_SECRET: 'whsec_sim' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
  });

  it('starts with a real key and its own webhook secret', () => {
    const c = loadConfig({ STRIPE_SECRET_KEY: 'sk_live_51Habc', STRIPE_WEBHOOK_SECRET: 'whsec_endpoint_secret' });
    expect(c.stripeSecretKey).toBe('sk_live_51Habc');
    expect(c.stripeWebhookSecret).toBe('whsec_endpoint_secret');
  });

  it('keeps the simulator working without any secret: no key, or the simulator key', () => {
    expect(loadConfig({})).toMatchObject({ stripeSecretKey: null, stripeWebhookSecret: 'whsec_sim' });
    expect(loadConfig({ STRIPE_SECRET_KEY: 'sk_test_sim', STRIPE_API_URL: 'http://127.0.0.1:12111' }))
      .toMatchObject({ stripeSecretKey: 'sk_test_sim', stripeWebhookSecret: 'whsec_sim' });
  });
});

describe('loadConfig: the database bounds', () => {
  it('default to a 503 within 2 s of a silent database, and keep the background at least as long as the request path', () => {
    expect(loadConfig({}).dbBounds).toEqual({ connectMs: 1500, queueMs: 3000, statementMs: 1200, backgroundStatementMs: 10_000 });
    expect(loadConfig({ DB_CONNECT_TIMEOUT_MS: '1500', DB_STATEMENT_TIMEOUT_MS: '800', DB_BACKGROUND_STATEMENT_TIMEOUT_MS: '800' }).dbBounds)
      .toEqual({ connectMs: 1500, queueMs: 3000, statementMs: 800, backgroundStatementMs: 800 });
    expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: '2000', DB_BACKGROUND_STATEMENT_TIMEOUT_MS: '1000' })).toThrow(/DB_BACKGROUND_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig({ DB_CONNECT_TIMEOUT_MS: '0' })).toThrow(/DB_CONNECT_TIMEOUT_MS/);
    expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: 'soon' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  });
});

describe('loadConfig: the purchase path limit', () => {
  it('floors at twice the database pool by default, and starts no lower', () => {
    expect(loadConfig({}).purchaseConcurrency).toEqual({ initial: 100, min: 40, max: 1000, bookingMin: 100, holdQueue: { slots: 20, waitMs: 500 } });
    expect(loadConfig({ DB_POOL_SIZE: '60' }).purchaseConcurrency).toEqual({ initial: 120, min: 120, max: 1000, bookingMin: 300, holdQueue: { slots: 60, waitMs: 500 } });
    expect(loadConfig({ PURCHASE_CONCURRENCY_MIN: '10' }).purchaseConcurrency).toEqual({ initial: 100, min: 10, max: 1000, bookingMin: 100, holdQueue: { slots: 20, waitMs: 500 } });
    expect(loadConfig({ BOOKING_CONCURRENCY_MIN: '30', PURCHASE_CONCURRENCY_MIN: '35' }).purchaseConcurrency).toEqual({ initial: 100, min: 35, max: 1000, bookingMin: 35, holdQueue: { slots: 20, waitMs: 500 } });
    expect(loadConfig({ PURCHASE_QUEUE_WAIT_MS: '0' }).purchaseConcurrency).toEqual({ initial: 100, min: 40, max: 1000, bookingMin: 100 });
    expect(() => loadConfig({ PURCHASE_CONCURRENCY_MAX: '30' })).toThrow(/PURCHASE_CONCURRENCY/);
  });
});

describe('loadConfig: the seat map streams per client address', () => {
  it('takes 64 by default, a positive integer from STREAM_MAX_PER_ADDRESS, and refuses anything else', () => {
    expect(loadConfig({}).liveMap.maxPerAddress).toBe(64);
    expect(loadConfig({ STREAM_MAX_PER_ADDRESS: '8' }).liveMap.maxPerAddress).toBe(8);
    for (const bad of ['0', '-1', '2.5', 'many']) expect(() => loadConfig({ STREAM_MAX_PER_ADDRESS: bad }), bad).toThrow(/STREAM_MAX_PER_ADDRESS/);
  });
});
