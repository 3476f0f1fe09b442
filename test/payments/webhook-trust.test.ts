// A webhook is a hint, never proof (API.md "Bookings and payment", DESIGN.md
// invariant 9): whoever holds the webhook secret can sign anything, so before a
// booking is confirmed, failed or refunded because of an event, the service reads
// the PaymentIntent (or refund) back from the provider and acts on what the
// provider says. A refund the provider refuses for good stops retrying and shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLeftoverEvents } from '../../src/app/webhooks.js';
import { relayOutbox } from '../../src/workers/outboxRelay.js';
import { closeService, expectStatus, refundsFor, until } from '../bookings/helpers.js';
import {
  bookingState, bookWith, capturedLog, eventBody, postWebhook, setChaos, sign, simulatorClient, startWebhookWorld, webhookRow, type WebhookWorld,
} from './serviceWebhooks.js';

describe('webhooks are checked against the provider', () => {
  let w: WebhookWorld;
  beforeAll(async () => { w = await startWebhookWorld(); });
  afterAll(async () => { await closeService(w?.t); });

  const sendSigned = async (type: string, object: object) => {
    const e = eventBody(type, object);
    const r = await postWebhook(w.t, e.raw, sign(e.raw));
    expectStatus(r, 200);
    return e.id;
  };
  const metrics = async () => (await w.t.http.get('/metrics')).text;
  const counter = (text: string, name: string, labels: string) =>
    Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);

  it('a signed payment_intent.succeeded naming a pending booking, with a made-up PaymentIntent, amount 1 and another currency, changes nothing', async () => {
    const { booking, pi } = await bookWith(w, 'pm_card_timeout_succeeds');
    expect(booking.status).toBe('pending');
    const before = await bookingState(w.t, booking.booking_id);
    const ignoredBefore = counter(await metrics(), 'boxoffice_webhook_events_ignored_total', 'reason="provider_missing"');

    const forged = { ...pi, id: 'pi_made_up_by_an_attacker', amount: 1, amount_received: 1, currency: 'usd', status: 'succeeded' };
    const id = await sendSigned('payment_intent.succeeded', forged);
    expect(await webhookRow(w.t, id), 'recorded and done with').toEqual({ processed: true });
    expect(await bookingState(w.t, booking.booking_id)).toEqual(before);
    expect(before).toMatchObject({ booking: 'pending', seats: ['paying'], tickets: 0, refunds: [] });
    expect(counter(await metrics(), 'boxoffice_webhook_events_ignored_total', 'reason="provider_missing"')).toBe(ignoredBefore + 1);
  });

  it("another booking's real PaymentIntent, relabelled with this booking's attempt, changes nothing", async () => {
    const { booking } = await bookWith(w, 'pm_card_timeout_succeeds');
    const { pi: paidElsewhere } = await bookWith(w, 'pm_card_visa');
    const before = await bookingState(w.t, booking.booking_id);
    const [attempt] = (await w.t.service.ctx.db.query<{ id: string }>('select id from payment_attempts where booking_id = $1', [booking.booking_id])).rows;
    const relabelled = { ...paidElsewhere, metadata: { ...paidElsewhere.metadata, attempt_id: attempt!.id, booking_id: booking.booking_id } };
    await sendSigned('payment_intent.succeeded', relabelled);
    expect(await bookingState(w.t, booking.booking_id)).toEqual(before);
  });

  it('a forged succeeded event on a declined booking refunds nothing (made-up and real PaymentIntent ids)', async () => {
    const { booking, pi } = await bookWith(w, 'pm_card_declined');
    expect(booking.status).toBe('failed');
    const before = await bookingState(w.t, booking.booking_id);
    await sendSigned('payment_intent.succeeded', { ...pi, id: 'pi_never_charged', status: 'succeeded', amount_received: pi.amount });
    await sendSigned('payment_intent.succeeded', { ...pi, status: 'succeeded', amount_received: pi.amount });
    const after = await bookingState(w.t, booking.booking_id);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ booking: 'failed', refunds: [] });
    expect(refundsFor(w.t, booking.booking_id)).toHaveLength(0);
  });

  it('a forged refund.created does not mark a pending refund succeeded; the genuine one does', async () => {
    const { booking, pi } = await bookWith(w, 'pm_card_visa');
    expectStatus(await w.t.http.post(`/v1/bookings/${booking.booking_id}/cancel`, {}, w.buyer.token), 200);
    const [refund] = (await w.t.service.ctx.db.query<{ id: string }>('select id from refunds where booking_id = $1', [booking.booking_id])).rows;
    const metadata = { booking_id: booking.booking_id, payment_intent: pi.id, refund_id: refund!.id };
    const forged = { id: 're_made_up', object: 'refund', amount: booking.amount, currency: 'eur', payment_intent: pi.id, status: 'succeeded', metadata };
    await sendSigned('refund.created', forged);
    await sendSigned('refund.updated', forged);
    expect((await bookingState(w.t, booking.booking_id)).refunds).toEqual([{ status: 'pending', reason: 'cancellation', payment_intent: pi.id }]);

    // The provider did refund (say our request's answer was lost): its own event is believed.
    const real = await simulatorClient(w.t).refunds.create({ payment_intent: pi.id, amount: booking.amount, metadata }, { idempotencyKey: refund!.id });
    await sendSigned('refund.created', real);
    expect((await bookingState(w.t, booking.booking_id)).refunds).toEqual([{ status: 'succeeded', reason: 'cancellation', payment_intent: pi.id }]);
  });

  it("confirms through the provider's own webhook when the booking request's answer was lost", async () => {
    w.t.simulator!.ctx.webhooks.setEndpoint(`${w.t.baseUrl}/v1/payments/webhook`);
    try {
      // The request's own answer is lost and no reconciler runs in this file: only the
      // webhook (read back) can confirm it — often before the request gives up waiting.
      const { booking } = await bookWith(w, 'pm_card_timeout_succeeds');
      expect(['pending', 'confirmed']).toContain(booking.status);
      await until('the webhook to confirm the booking', async () => (await bookingState(w.t, booking.booking_id)).booking === 'confirmed', 15_000);
      expect(await bookingState(w.t, booking.booking_id)).toMatchObject({ booking: 'confirmed', seats: ['booked'], refunds: [] });
    } finally {
      w.t.simulator!.ctx.webhooks.setEndpoint(null);
    }
  });

  it('when the provider cannot be asked, the event stays unprocessed and the worker applies it later', async () => {
    const { booking, pi } = await bookWith(w, 'pm_card_timeout_succeeds');
    await setChaos(w.t, { error_rate: 1 });
    let id: string;
    try {
      id = await sendSigned('payment_intent.succeeded', pi);
      expect(await webhookRow(w.t, id)).toEqual({ processed: false });
      expect((await bookingState(w.t, booking.booking_id)).booking).toBe('pending');
    } finally {
      await setChaos(w.t, { error_rate: 0 });
    }
    // The leftover pass takes events recorded a while ago; age this one instead of waiting.
    await w.t.service.ctx.db.query("update webhook_events set received_at = received_at - interval '1 minute' where id = $1", [id]);
    await applyLeftoverEvents(w.t.service.ctx, w.t.service.ctx.db, capturedLog());
    expect(await webhookRow(w.t, id)).toEqual({ processed: true });
    expect((await bookingState(w.t, booking.booking_id)).booking).toBe('confirmed');
  });

  it('a refund the provider refuses for good is marked failed after one attempt, retried no more, and shows in stats and metrics', async () => {
    const { booking } = await bookWith(w, 'pm_card_visa');
    const db = w.t.service.ctx.db;
    // Seeded as an earlier bug would have left it: a refund of a PaymentIntent the provider never had.
    await db.query(
      `insert into refunds (id, booking_id, payment_intent, amount, currency, reason, status)
       values ('rfd_seeded_missing', $1, 'pi_does_not_exist', $2, 'EUR', 'cancellation', 'pending')`, [booking.booking_id, booking.amount]);
    await db.query(`insert into outbox (topic, payload) values ('refund.create', '{"refund_id":"rfd_seeded_missing"}')`);
    const log = capturedLog();
    for (let i = 0; i < 3; i++) await relayOutbox(w.t.service.ctx, w.t.service.ctx.db, 'refund.create', log);

    const [refund] = (await db.query<{ status: string; failure_reason: string | null }>(
      "select status, failure_reason from refunds where id = 'rfd_seeded_missing'")).rows;
    expect(refund!.status).toBe('failed');
    expect(refund!.failure_reason).toMatch(/No such payment_intent/);
    const [row] = (await db.query<{ done: boolean; attempts: number }>(
      "select done_at is not null as done, attempts from outbox where payload->>'refund_id' = 'rfd_seeded_missing'")).rows;
    expect(row).toEqual({ done: true, attempts: 1 });
    expect(refundsFor(w.t, booking.booking_id)).toHaveLength(0);
    expect(log.warnings.map((x) => x.m)).toEqual(['refund refused by the provider; marked failed']);

    const stats = await w.t.http.get(`/v1/admin/shows/${w.showId}/stats`, w.t.adminToken);
    expectStatus(stats, 200);
    expect(stats.body.refunds_failed).toBe(1);
    expect(counter(await metrics(), 'boxoffice_refunds_refused_total', 'code="resource_missing"')).toBe(1);
    expect((await w.t.http.get(`/v1/bookings/${booking.booking_id}`, w.buyer.token)).body.refund).toEqual({ status: 'failed', amount: booking.amount });
  });
});
