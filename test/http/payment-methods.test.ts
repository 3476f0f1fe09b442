// GET /v1/payments/methods: the simulator's test methods (with what each does) while
// the service pays through the simulator; none with a real Stripe key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { TEST_PAYMENT_METHODS } from '@boxoffice/paysim';
import { paymentMethods, TEST_PAYMENT_METHODS_FOR_PEOPLE } from '../../src/app/paymentMethods.js';
import { loadConfig } from '../../src/config.js';

let t: TestService;
beforeAll(async () => { t = await startTestService({ pglite: true, sweeper: false }); });
afterAll(async () => { await t?.close(); });

describe('GET /v1/payments/methods', () => {
  it('offers the simulator test methods with their descriptions, to anyone', async () => {
    const r = await t.http.get('/v1/payments/methods');
    expect(r.status).toBe(200);
    expect(r.body.test_mode).toBe(true);
    expect(r.body.methods.map((m: { id: string }) => m.id)).toEqual([
      'pm_card_visa', 'pm_card_declined', 'pm_card_slow', 'pm_card_timeout_succeeds', 'pm_card_timeout_fails',
    ]);
    expect(r.body.methods[1]).toEqual({ id: 'pm_card_declined', description: TEST_PAYMENT_METHODS_FOR_PEOPLE[1]![1] });
  });

  it('refuses unknown query parameters', async () => {
    const r = await t.http.get('/v1/payments/methods?card=1');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
  });

  it('is in the OpenAPI document', async () => {
    const doc = await t.http.get('/openapi.json');
    expect(doc.body.paths['/v1/payments/methods'].get.responses['200']).toBeDefined();
  });
});

describe('which methods the service offers', () => {
  const base = loadConfig({});
  it('test mode with the bundled simulator (no key) and with the simulator key', () => {
    expect(paymentMethods({ config: { ...base, stripeSecretKey: null } }).test_mode).toBe(true);
    expect(paymentMethods({ config: { ...base, stripeSecretKey: 'sk_test_sim' } }).methods).toHaveLength(5);
  });
  it('no methods with a real Stripe key', () => {
    expect(paymentMethods({ config: { ...base, stripeSecretKey: 'sk_live_example' } })).toEqual({ test_mode: false, methods: [] });
  });
});

describe('what the service says of each test method', () => {
  // The service owns the words (src/app/paymentMethods.ts); the simulator decides what happens.
  it('is what the simulator does with it', () => {
    for (const [id, description] of TEST_PAYMENT_METHODS_FOR_PEOPLE) {
      const method = TEST_PAYMENT_METHODS.get(id);
      expect(method, id).toBeDefined();
      expect(method!.outcome, id).toBe(/^declined/.test(description) ? 'declined' : 'succeeded');
      expect(method!.losesFirstAnswer, id).toBe(description.includes('first answer is lost'));
      expect(method!.processing === 'slow', id).toBe(description.includes('after about 3 s'));
    }
  });
});
