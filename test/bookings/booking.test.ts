import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';

async function until<T>(f: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('bookings', () => {
  let t: TestService;
  let showId: string;
  let buyer: Buyer;
  beforeAll(async () => {
    t = await startTestService({ payments: {} });
    ({ showId } = await createShow(t));
    buyer = (await registerBuyers(t, 1))[0]!;
  });
  afterAll(async () => { await t?.close(); });

  const hold = async (seats: string[]) => {
    const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token);
    expect(r.status).toBe(201);
    return r.body.hold_id as string;
  };
  const book = (holdId: string, pm: string, key: string) =>
    t.http.post('/v1/bookings', { hold_id: holdId, payment_method: pm }, buyer.token, { 'idempotency-key': key });

  it('confirms with pm_card_visa, books the seats and issues tickets', async () => {
    const holdId = await hold(['A1', 'A2']);
    const r = await book(holdId, 'pm_card_visa', 'k-visa');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ hold_id: holdId, show_id: showId, seats: ['A1', 'A2'], amount: 2000, currency: 'EUR', status: 'confirmed' });
    const map = await t.http.get(`/v1/shows/${showId}/seats`);
    expect(map.body.seats.filter((s: { status: string }) => s.status === 'booked').map((s: { seat: string }) => s.seat)).toEqual(['A1', 'A2']);
    const tickets = await until(async () => {
      const x = await t.http.get(`/v1/bookings/${r.body.booking_id}/tickets`, buyer.token);
      return x.body.tickets.length === 2 ? x.body.tickets : null;
    });
    expect(tickets[0]).toMatchObject({ seat: 'A1' });
    const again = await book(holdId, 'pm_card_visa', 'k-visa');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(r.body);
  });

  it('declines with pm_card_declined and keeps the hold active for another try', async () => {
    const holdId = await hold(['B1']);
    const r = await book(holdId, 'pm_card_declined', 'k-declined');
    expect(r.body.status).toBe('failed');
    expect((await t.http.get(`/v1/holds/${holdId}`, buyer.token)).body.status).toBe('active');
    const retry = await book(holdId, 'pm_card_visa', 'k-declined-retry');
    expect(retry.body.status).toBe('confirmed');
  });

  it('answers pending when the answer is lost, then the reconciler (not a webhook) confirms', async () => {
    const holdId = await hold(['C1']);
    const endpoint = `${t.baseUrl}/v1/payments/webhook`;
    t.simulator!.ctx.webhooks.setEndpoint(null);
    const r = await book(holdId, 'pm_card_timeout_succeeds', 'k-timeout').finally(() => t.simulator!.ctx.webhooks.setEndpoint(endpoint));
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('pending');
    const done = await until(async () => {
      const x = await t.http.get(`/v1/bookings/${r.body.booking_id}`, buyer.token);
      return x.body.status !== 'pending' ? x.body : null;
    });
    expect(done.status).toBe('confirmed');
  });

  it('cancels once: seats free, one refund, tickets void', async () => {
    const holdId = await hold(['D1']);
    const r = await book(holdId, 'pm_card_visa', 'k-cancel');
    expect(r.body.status).toBe('confirmed');
    const [c1, c2] = await Promise.all([
      t.http.post(`/v1/bookings/${r.body.booking_id}/cancel`, {}, buyer.token),
      t.http.post(`/v1/bookings/${r.body.booking_id}/cancel`, {}, buyer.token),
    ]);
    expect([c1.status, c2.status]).toEqual([200, 200]);
    expect(c1.body.status).toBe('cancelled');
    expect(c1.body.refund.amount).toBe(1000);
    const refundsOf = () => t.simulator!.ctx.store.refunds.all().filter((x) => x.metadata.booking_id === r.body.booking_id);
    await until(async () => (refundsOf().length ? true : null));
    // Give a second refund time to show up, then count what the provider holds now.
    await new Promise((res) => setTimeout(res, 500));
    expect(refundsOf()).toHaveLength(1);
  });

  it("shows a booking to its owner and an admin, and to nobody else", async () => {
    const holdId = await hold(['E1']);
    const r = await book(holdId, 'pm_card_visa', 'k-visibility');
    const [other] = await registerBuyers(t, 1);
    expect((await t.http.get(`/v1/bookings/${r.body.booking_id}`, buyer.token)).status).toBe(200);
    expect((await t.http.get(`/v1/bookings/${r.body.booking_id}`, t.adminToken)).body.booking_id).toBe(r.body.booking_id);
    expect((await t.http.get(`/v1/bookings/${r.body.booking_id}`, other!.token)).status).toBe(404);
    expect((await t.http.get('/v1/bookings', other!.token)).body.bookings).toEqual([]);
  });
});
