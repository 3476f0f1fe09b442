// One slow provider call must not stall the background work of everybody else.
// A refund whose answer the bank loses keeps its outbox relay waiting for the
// SDK's timeout; meanwhile another buyer's tickets must still be issued within
// a few seconds (API.md "Tickets") and a pending booking must still be
// reconciled promptly. Found by chaos.test.ts (the outbox drained in ~15 s steps).
//
// Every step of the set-up asserts that what it waited for happened, and each
// test asserts that the refund was still stalled when the other work finished:
// without a stall, or with the other work queued behind it, the test fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';

// The refund's lost answer stalls its relay for the whole payment timeout, longer
// than the 5 s the other work is allowed: work queued behind it cannot pass.
const PAYMENT_TIMEOUT_MS = 8000;
const PROMPT_MS = 5000;

/** Polls until f() holds; the elapsed time, or null when it never held within capMs. */
async function msUntil(f: () => Promise<boolean> | boolean, capMs = 60_000): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    if (await f()) return Date.now() - started;
    if (Date.now() - started > capMs) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('background work under one slow provider call', () => {
  let t: TestService;
  let showId: string;
  let buyer: Buyer;
  beforeAll(async () => {
    t = await startTestService({ payments: {}, config: { paymentTimeoutMs: PAYMENT_TIMEOUT_MS, poolSize: 5 } });
    ({ showId } = await createShow(t));
    buyer = (await registerBuyers(t, 1))[0]!;
  });
  afterAll(async () => { await t?.close(); });

  const hold = async (seat: string) => {
    const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats: [seat] }, buyer.token);
    expect(r.status, `hold ${seat}: ${r.text}`).toBe(201);
    return r.body.hold_id as string;
  };
  const book = (holdId: string, pm: string, key: string) =>
    t.http.post('/v1/bookings', { hold_id: holdId, payment_method: pm }, buyer.token, { 'idempotency-key': key });
  const ticketCount = async (bookingId: string) => (await t.http.get(`/v1/bookings/${bookingId}/tickets`, buyer.token)).body.tickets.length as number;
  /** The refund relay holds this booking's refund: leased, neither delivered nor given up on yet. */
  const relayWaitsOnRefund = async (bookingId: string) => Number((await t.service.ctx.db.query<{ n: string | number }>(
    `select count(*) as n from outbox o join refunds r on r.id = o.payload->>'refund_id'
      where r.booking_id = $1 and o.topic = 'refund.create' and o.done_at is null and o.lease_until > now()`, [bookingId])).rows[0]!.n) === 1;

  /**
   * Cancels a confirmed booking while the bank loses every answer, and returns
   * once the refund is committed at the bank with its answer withheld. The
   * returned check tells whether the relay is still waiting on that answer.
   */
  async function stallTheRelayOnARefund(seat: string, key: string): Promise<() => Promise<boolean>> {
    const sim = t.simulator!;
    const paid = await book(await hold(seat), 'pm_card_visa', key);
    expect(paid.body.status).toBe('confirmed');
    const bookingId = paid.body.booking_id as string;
    // Its own tickets first, so that nothing but the refund is left for the relays.
    expect(await msUntil(async () => (await ticketCount(bookingId)) === 1, 10_000), 'tickets of the booking to cancel').not.toBeNull();
    // A stall left by an earlier test ends with its payment timeout.
    expect(await msUntil(() => sim.ctx.held.size === 0, PAYMENT_TIMEOUT_MS + 5000), 'no answer withheld before the stall').not.toBeNull();

    sim.ctx.chaos.update({ timeout_after_commit_rate: 1 });
    const refundAtBank = () => sim.ctx.store.refunds.all().find((r) => r.metadata.booking_id === bookingId);
    let committed: number | null;
    try {
      const cancelled = await t.http.post(`/v1/bookings/${bookingId}/cancel`, {}, buyer.token);
      expect(cancelled.body.status).toBe('cancelled');
      committed = await msUntil(() => refundAtBank() !== undefined && sim.ctx.held.size === 1, 10_000);
    } finally {
      sim.ctx.chaos.update({ timeout_after_commit_rate: 0 });
    }
    expect(committed, 'the refund is committed at the bank and its answer withheld').not.toBeNull();
    expect(await relayWaitsOnRefund(bookingId), 'the refund relay waits on that answer').toBe(true);
    return async () => sim.ctx.held.size === 1 && (await relayWaitsOnRefund(bookingId));
  }

  it('issues another buyer\'s tickets within a few seconds', async () => {
    const stalled = await stallTheRelayOnARefund('A1', 'stall-1');
    const other = await book(await hold('A2'), 'pm_card_visa', 'other-1');
    expect(other.body.status).toBe('confirmed');
    const ms = await msUntil(async () => (await ticketCount(other.body.booking_id)) === 1);
    const stillStalled = await stalled();
    process.stdout.write(`[worker-stall] tickets of an unrelated confirmed booking after ${ms} ms; refund still stalled then: ${stillStalled}\n`);
    expect(ms, 'tickets issued at all').not.toBeNull();
    expect(ms!).toBeLessThan(PROMPT_MS);
    expect(stillStalled, 'the tickets were issued while the refund\'s relay still waited').toBe(true);
  }, 90_000);

  it('reconciles a pending booking promptly', async () => {
    const sim = t.simulator!;
    const stalled = await stallTheRelayOnARefund('B1', 'stall-2');
    const endpoint = sim.ctx.webhooks.url;
    sim.ctx.webhooks.setEndpoint(null); // only the reconciler can resolve it
    try {
      // A 5xx before anything is committed: the outcome is unknown at once (a lost
      // answer would take the whole payment timeout, outlasting the stall).
      const holdId = await hold('B2');
      sim.ctx.chaos.update({ error_rate: 1 });
      let pending;
      try {
        pending = await book(holdId, 'pm_card_visa', 'other-2');
      } finally {
        sim.ctx.chaos.update({ error_rate: 0 });
      }
      expect(pending.status).toBe(201);
      expect(pending.body.status).toBe('pending');
      const ms = await msUntil(async () => (await t.http.get(`/v1/bookings/${pending.body.booking_id}`, buyer.token)).body.status !== 'pending');
      const stillStalled = await stalled();
      const final = (await t.http.get(`/v1/bookings/${pending.body.booking_id}`, buyer.token)).body.status;
      process.stdout.write(`[worker-stall] pending booking (provider 5xx, no webhook) ${final} ${ms} ms after its 201; refund still stalled then: ${stillStalled}\n`);
      expect(ms, 'the pending booking resolved at all').not.toBeNull();
      expect(ms!).toBeLessThan(PROMPT_MS);
      expect(final).toBe('confirmed');
      expect(stillStalled, 'the booking was reconciled while the refund\'s relay still waited').toBe(true);
    } finally {
      sim.ctx.webhooks.setEndpoint(endpoint);
    }
  }, 90_000);
});
