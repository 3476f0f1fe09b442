// A payment event that arrives while its booking request still waits for the
// provider (the attempt `created`, before the reconciler's turn) is answered at once
// and looks again after a pause: if the request recorded the same answer meanwhile,
// the event is settled in one statement with no read-back; if not (the request's
// answer was lost), it is read back from the provider and applied as any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWAITED_EVENT_PAUSE_MS } from '../../src/app/webhooks.js';
import { AwaitedEvents } from '../../src/app/awaitedEvents.js';
import { closeService, expectStatus, until } from '../bookings/helpers.js';
import { bookingState, bookWith, eventBody, postWebhook, sign, startWebhookWorld, webhookRow, type WebhookWorld } from './serviceWebhooks.js';

describe('an event that arrives while its request is still waiting', () => {
  let w: WebhookWorld;
  beforeAll(async () => { w = await startWebhookWorld(); });
  afterAll(async () => { await closeService(w?.t); });

  const metrics = async () => (await w.t.http.get('/metrics')).text;
  const paths = async () => {
    const text = await metrics();
    const of = (path: string) => Number(new RegExp(`^boxoffice_webhook_events_total\\{path="${path}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { settled: of('settled'), settled_after_pause: of('settled_after_pause'), read_back: of('read_back'), duplicate: of('duplicate') };
  };
  /** A booking whose answer was lost (pending, attempt `unknown`), put back as if its request were still waiting. */
  const waitingBooking = async () => {
    const { booking, pi } = await bookWith(w, 'pm_card_timeout_succeeds');
    expect(booking.status).toBe('pending');
    await w.t.service.ctx.db.query(
      "update payment_attempts set status = 'created', next_check_at = bo_now() + interval '1 minute' where booking_id = $1", [booking.booking_id]);
    return { booking, pi };
  };
  const post = async (object: object) => {
    const e = eventBody('payment_intent.succeeded', object);
    const sent = Date.now();
    expectStatus(await postWebhook(w.t, e.raw, sign(e.raw)), 200);
    return { id: e.id, answeredInMs: Date.now() - sent };
  };

  it('is answered at once and settled without a read-back when the request records the same answer meanwhile', async () => {
    const { booking, pi } = await waitingBooking();
    const before = await paths();
    const { id, answeredInMs } = await post(pi);
    expect(answeredInMs, 'the provider is not kept waiting').toBeLessThan(AWAITED_EVENT_PAUSE_MS);
    expect(await webhookRow(w.t, id)).toEqual({ processed: false });
    // The request records the provider's answer (here: the attempt alone, so a read-back,
    // which would confirm the booking, shows).
    await w.t.service.ctx.db.query("update payment_attempts set status = 'succeeded' where booking_id = $1", [booking.booking_id]);
    await until('the event to be settled', async () => (await webhookRow(w.t, id))?.processed, 5000, 50);
    expect(await paths()).toEqual({ ...before, settled_after_pause: before.settled_after_pause + 1 });
    expect((await bookingState(w.t, booking.booking_id)).booking, 'not read back and applied').toBe('pending');
  });

  it('is read back and applied after the pause when the request never records it', async () => {
    const { booking, pi } = await waitingBooking();
    const before = await paths();
    const { id } = await post(pi);
    await until('the booking to be confirmed', async () => (await bookingState(w.t, booking.booking_id)).booking === 'confirmed', 5000, 50);
    expect(await webhookRow(w.t, id)).toEqual({ processed: true });
    expect(await paths()).toEqual({ ...before, read_back: before.read_back + 1 });
  });

  it('an event repeating what the attempt already says is settled in its one statement, a redelivery counted as a duplicate', async () => {
    const { booking, pi } = await waitingBooking();
    await w.t.service.ctx.db.query("update payment_attempts set status = 'succeeded' where booking_id = $1", [booking.booking_id]);
    const before = await paths();
    const e = eventBody('payment_intent.succeeded', pi);
    expectStatus(await postWebhook(w.t, e.raw, sign(e.raw)), 200);
    expectStatus(await postWebhook(w.t, e.raw, sign(e.raw)), 200);
    expect(await webhookRow(w.t, e.id)).toEqual({ processed: true });
    expect(await paths()).toEqual({ ...before, settled: before.settled + 1, duplicate: before.duplicate + 1 });
  });
});

describe('AwaitedEvents', () => {
  it('runs each task after the pause, refuses beyond its maximum, and on close drops what has not started', async () => {
    const events = new AwaitedEvents(30, 2);
    const ran: number[] = [];
    expect(events.later(async () => { ran.push(1); })).toBe(true);
    expect(events.later(async () => { ran.push(2); })).toBe(true);
    expect(events.later(async () => { ran.push(3); }), 'full').toBe(false);
    expect(ran).toEqual([]);
    await until('both to run', async () => ran.length === 2, 2000, 5);
    expect(events.size).toBe(0);
    expect(events.later(async () => { ran.push(4); })).toBe(true);
    await events.close();
    expect(events.later(async () => { ran.push(5); }), 'closed').toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(ran).toEqual([1, 2]);
  });

  it('waits on close for a task that has started', async () => {
    const events = new AwaitedEvents(1, 10);
    let finished = false;
    events.later(async () => { await new Promise((r) => setTimeout(r, 100)); finished = true; });
    await new Promise((r) => setTimeout(r, 30)); // started (after 1 ms), not finished (100 ms)
    expect(finished).toBe(false);
    await events.close();
    expect(finished).toBe(true);
  });
});
