// One slow provider call must not stall the background work of everybody else.
// A refund whose answer the bank loses keeps its outbox relay waiting for the
// SDK's timeout; meanwhile another buyer's tickets must still be issued within
// a few seconds (API.md "Tickets") and a pending booking must still be
// reconciled promptly. Found by chaos.test.ts (the outbox drained in ~15 s steps).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';

async function msUntil(f: () => Promise<boolean>, capMs = 60_000): Promise<number> {
  const started = Date.now();
  while (!(await f())) {
    if (Date.now() - started > capMs) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
}

describe('background work under one slow provider call', () => {
  let t: TestService;
  let showId: string;
  let buyer: Buyer;
  beforeAll(async () => {
    t = await startTestService({ payments: {}, config: { paymentTimeoutMs: 800, poolSize: 5 } });
    ({ showId } = await createShow(t));
    buyer = (await registerBuyers(t, 1))[0]!;
  });
  afterAll(async () => { await t?.close(); });

  const hold = async (seat: string) => (await t.http.post(`/v1/shows/${showId}/holds`, { seats: [seat] }, buyer.token)).body.hold_id as string;
  const book = (holdId: string, pm: string, key: string) =>
    t.http.post('/v1/bookings', { hold_id: holdId, payment_method: pm }, buyer.token, { 'idempotency-key': key });
  const ticketCount = async (bookingId: string) => (await t.http.get(`/v1/bookings/${bookingId}/tickets`, buyer.token)).body.tickets.length as number;

  /** Cancels a confirmed booking while the bank loses every answer, until the relay waits on the refund's lost answer. */
  async function stallTheRelayOnARefund(seat: string, key: string): Promise<void> {
    const sim = t.simulator!;
    const paid = await book(await hold(seat), 'pm_card_visa', key);
    expect(paid.body.status).toBe('confirmed');
    await msUntil(async () => (await ticketCount(paid.body.booking_id)) === 1, 10_000);
    sim.ctx.chaos.update({ timeout_after_commit_rate: 1 });
    const cancelled = await t.http.post(`/v1/bookings/${paid.body.booking_id}/cancel`, {}, buyer.token);
    expect(cancelled.body.status).toBe('cancelled');
    await msUntil(async () => sim.ctx.held.size > 0, 10_000); // the refund is committed; its answer is being withheld
    sim.ctx.chaos.update({ timeout_after_commit_rate: 0 });
  }

  it('issues another buyer\'s tickets within a few seconds', async () => {
    await stallTheRelayOnARefund('A1', 'stall-1');
    const other = await book(await hold('A2'), 'pm_card_visa', 'other-1');
    expect(other.body.status).toBe('confirmed');
    const ms = await msUntil(async () => (await ticketCount(other.body.booking_id)) === 1);
    process.stdout.write(`[worker-stall] tickets of an unrelated confirmed booking after ${ms} ms\n`);
    expect(ms).toBeLessThan(5000);
  }, 90_000);

  it('reconciles a pending booking promptly', async () => {
    await stallTheRelayOnARefund('B1', 'stall-2');
    const endpoint = t.simulator!.ctx.webhooks.url;
    t.simulator!.ctx.webhooks.setEndpoint(null); // only the reconciler can resolve it
    try {
      const pending = await book(await hold('B2'), 'pm_card_timeout_succeeds', 'other-2');
      expect(pending.body.status).toBe('pending');
      const ms = await msUntil(async () => (await t.http.get(`/v1/bookings/${pending.body.booking_id}`, buyer.token)).body.status !== 'pending');
      process.stdout.write(`[worker-stall] pending booking (lost answer, no webhook) resolved ${ms} ms after its 201\n`);
      expect(ms).toBeLessThan(5000);
    } finally {
      t.simulator!.ctx.webhooks.setEndpoint(endpoint);
    }
  }, 90_000);
});
