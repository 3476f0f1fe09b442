// POST /v1/payments/webhook at the door (API.md "Bookings and payment"): a missing
// or bad Stripe-Signature, or a timestamp more than 5 minutes off either way, is
// 400 WEBHOOK_SIGNATURE_INVALID; a signed body that is not an event is 400
// VALIDATION_FAILED. Either way nothing is recorded and nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeService, expectProblem, expectStatus } from '../bookings/helpers.js';
import {
  bookingState, bookWith, eventBody, postWebhook, sign, startWebhookWorld, unixNow, webhookRow, webhookRowCount, type WebhookWorld,
} from './serviceWebhooks.js';

describe('the webhook endpoint refuses what it cannot trust', () => {
  let w: WebhookWorld;
  beforeAll(async () => { w = await startWebhookWorld(); });
  afterAll(async () => { await closeService(w?.t); });

  it('unsigned or badly signed events: 400 WEBHOOK_SIGNATURE_INVALID, nothing recorded, the booking stays pending', async () => {
    // A booking whose payment did succeed at the provider, but whose answer was lost:
    // a genuine-looking event for it would confirm it, if it were let in.
    const { booking, pi } = await bookWith(w, 'pm_card_timeout_succeeds');
    expect(booking.status).toBe('pending');
    const before = await bookingState(w.t, booking.booking_id);
    const { id, raw } = eventBody('payment_intent.succeeded', pi);
    const good = sign(raw);
    const attempts: [string, string | undefined][] = [
      ['no Stripe-Signature', undefined],
      ['an empty header', ''],
      ['garbage', 'garbage'],
      ['no v1 signature', `t=${unixNow()}`],
      ['a v0 signature only', good.replace('v1=', 'v0=')],
      ['signed with another secret', sign(raw, { secret: 'whsec_someone_else' })],
      ['a signature for other bytes', sign(raw.replace('"succeeded"', '"processing"'))],
    ];
    for (const [what, header] of attempts) {
      const r = await postWebhook(w.t, raw, header);
      expect(r.status, what).toBe(400);
      expectProblem(r, 400, 'WEBHOOK_SIGNATURE_INVALID');
    }
    // The signed bytes, altered after signing.
    expectProblem(await postWebhook(w.t, raw.replace(pi.id, `${pi.id}x`), good), 400, 'WEBHOOK_SIGNATURE_INVALID');

    expect(await webhookRow(w.t, id), 'a refused event must not be recorded').toBeNull();
    expect(await bookingState(w.t, booking.booking_id)).toEqual(before);
    expect(before).toMatchObject({ booking: 'pending', seats: ['paying'], tickets: 0 });

    // The very same bytes, signed: recorded and, the provider confirming, applied.
    const accepted = await postWebhook(w.t, raw, good);
    expectStatus(accepted, 200);
    expect(await webhookRow(w.t, id)).toEqual({ processed: true });
    expect((await bookingState(w.t, booking.booking_id)).booking).toBe('confirmed');
  });

  it.each([
    ['a list', '[]'],
    ['null', 'null'],
    ['a string', '"x"'],
    ['a number', '42'],
    ['an empty object', '{}'],
    ['no type, no data', '{"id":"evt_garbage_1"}'],
    ['no data', '{"id":"evt_garbage_2","type":"payment_intent.succeeded"}'],
    ['no data.object', '{"id":"evt_garbage_3","type":"payment_intent.succeeded","data":{}}'],
    ['data.object null', '{"id":"evt_garbage_4","type":"payment_intent.succeeded","data":{"object":null}}'],
    ['data.object a list', '{"id":"evt_garbage_5","type":"payment_intent.succeeded","data":{"object":[]}}'],
    ['no id', '{"type":"payment_intent.succeeded","data":{"object":{"id":"pi_1"}}}'],
    ['a numeric id', '{"id":7,"type":"payment_intent.succeeded","data":{"object":{"id":"pi_1"}}}'],
    ['an empty type', '{"id":"evt_garbage_6","type":"","data":{"object":{"id":"pi_1"}}}'],
    ['not JSON at all', 'this is not json'],
  ])('a signed body that is not an event (%s): 400 VALIDATION_FAILED, nothing recorded', async (_what, raw) => {
    const before = await webhookRowCount(w.t);
    expectProblem(await postWebhook(w.t, raw, sign(raw)), 400, 'VALIDATION_FAILED');
    expect(await webhookRowCount(w.t)).toBe(before);
  });

  it('a signed timestamp an hour ahead or behind: 400 WEBHOOK_SIGNATURE_INVALID, nothing recorded', async () => {
    for (const offset of [3600, -3600, 301, -301]) {
      const { id, raw } = eventBody('customer.created', { id: 'cus_test', object: 'customer' });
      expectProblem(await postWebhook(w.t, raw, sign(raw, { at: unixNow() + offset })), 400, 'WEBHOOK_SIGNATURE_INVALID');
      expect(await webhookRow(w.t, id), `offset ${offset} s`).toBeNull();
    }
  });

  it('a signed timestamp within a minute either way is accepted (clocks drift)', async () => {
    for (const offset of [60, -60, 0]) {
      const { id, raw } = eventBody('customer.created', { id: 'cus_test', object: 'customer' });
      const r = await postWebhook(w.t, raw, sign(raw, { at: unixNow() + offset }));
      expectStatus(r, 200);
      expect(r.body).toEqual({ received: true, duplicate: false });
      expect(await webhookRow(w.t, id), `offset ${offset} s`).toEqual({ processed: true });
    }
  });
});
