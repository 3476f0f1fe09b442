// Answers that say what went wrong (issue 7): why a payment failed, a hold that
// never existed (404) apart from one that expired (409), a body that is not JSON (415).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { TestService } from '../support/service.js';
import {
  closeService, expectProblem, expectStatus, holdSeats, newKey, paymentIntentsFor, postBooking, startService, until,
} from './helpers.js';

describe('booking answers that help', () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;
  let bob: Buyer;
  let seat = 0;
  const freshSeat = () => `A${++seat}`;

  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId } = await createShow(t, { per_user_limit: 50 }));
    [alice, bob] = (await registerBuyers(t, 2)) as [Buyer, Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const reads = async (bookingId: string) => {
    const one = await t.http.get(`/v1/bookings/${bookingId}`, alice.token);
    expectStatus(one, 200);
    const list = await t.http.get('/v1/bookings', alice.token);
    expectStatus(list, 200);
    return { one: one.body, listed: list.body.bookings.find((b: { booking_id: string }) => b.booking_id === bookingId) };
  };

  it('a declined card: failed, with failure {code: card_declined, message} on the answer, the booking and the list', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const r = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey('declined'));
    expectStatus(r, 201);
    const failure = { code: 'card_declined', message: 'Your card was declined.' };
    expect(r.body).toMatchObject({ status: 'failed', failure });
    const { one, listed } = await reads(r.body.booking_id);
    expect(one).toMatchObject({ status: 'failed', failure });
    expect(listed).toMatchObject({ status: 'failed', failure });
  });

  it('a payment method the provider does not know: failed with unknown_payment_method, naming it; nothing charged', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const r = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_vsia' }, alice.token, newKey('typo'));
    expectStatus(r, 201);
    expect(r.body.status).toBe('failed');
    expect(r.body.failure.code).toBe('unknown_payment_method');
    expect(r.body.failure.message).toContain('pm_card_vsia');
    expect((await reads(r.body.booking_id)).one.failure).toEqual(r.body.failure);
    expect(paymentIntentsFor(t, { holdId }).filter((pi) => pi.status === 'succeeded')).toHaveLength(0);
    // The hold stays active: the buyer fixes the typo and pays.
    const again = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, newKey('fixed'));
    expectStatus(again, 201);
    expect(again.body.status).toBe('confirmed');
    expect(again.body).not.toHaveProperty('failure');
  });

  it('a decline learnt later, from the provider read back (the first answer lost): failed with the reason', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const r = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_timeout_fails' }, alice.token, newKey('late'));
    expectStatus(r, 201);
    // pending, or already failed when the webhook's read-back came first
    if (r.body.status === 'pending') expect(r.body).not.toHaveProperty('failure');
    const failed = await until('the booking to fail', async () => {
      const { one } = await reads(r.body.booking_id);
      return one.status === 'failed' ? one : null;
    });
    expect(failed.failure).toEqual({ code: 'card_declined', message: 'Your card was declined.' });
  });

  it('a hold id that never existed: 404 NOT_FOUND, stored under the key and replayed; nothing charged', async () => {
    const key = newKey('ghost');
    const body = { hold_id: 'hold_000000000000000000000000', payment_method: 'pm_card_visa' };
    const first = await postBooking(t, body, alice.token, key);
    expectProblem(first, 404, 'NOT_FOUND');
    const again = await postBooking(t, body, alice.token, key);
    expect(again.status).toBe(404);
    expect(again.text).toBe(first.text);
    expect(paymentIntentsFor(t, { holdId: body.hold_id })).toHaveLength(0);
  });

  it("another buyer's hold and a released hold stay 409 HOLD_EXPIRED", async () => {
    const bobs = await holdSeats(t, showId, [freshSeat()], bob.token);
    expectProblem(await postBooking(t, { hold_id: bobs, payment_method: 'pm_card_visa' }, alice.token, newKey('theirs')), 409, 'HOLD_EXPIRED');
    const released = await holdSeats(t, showId, [freshSeat()], alice.token);
    expectStatus(await t.http.delete(`/v1/holds/${released}`, alice.token), 204);
    expectProblem(await postBooking(t, { hold_id: released, payment_method: 'pm_card_visa' }, alice.token, newKey('released')), 409, 'HOLD_EXPIRED');
    expect(paymentIntentsFor(t, { holdId: bobs })).toHaveLength(0);
  });

  it('a body that is not application/json: 415 VALIDATION_FAILED naming the type, stored under the key; nothing charged', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const raw = JSON.stringify({ hold_id: holdId, payment_method: 'pm_card_visa' });
    const types: Record<string, string>[] = [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}];
    for (const headers of types) {
      const key = newKey('media');
      const send = () => t.http.send('POST', '/v1/bookings', { raw, token: alice.token, headers: { ...headers, 'idempotency-key': key } });
      const first = await send();
      expectProblem(first, 415, 'VALIDATION_FAILED');
      expect(first.body.detail).toContain('application/json');
      const again = await send();
      expect(again.status).toBe(415);
      expect(again.text).toBe(first.text);
    }
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(0);
    expect((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status).toBe('active');
  });
});
