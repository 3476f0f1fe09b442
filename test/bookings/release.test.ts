// DELETE /v1/holds/{id} once money is involved (API.md "Holds"): 409 HOLD_PAYING
// while a payment is in flight, 409 HOLD_CONFIRMED once the hold became a booking
// (its seats stay booked), 204 for an active hold, also after a declined payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, holdSeats, newKey, postBooking, retrying, startService, until,
} from './helpers.js';

describe('DELETE /v1/holds/{id} after payment', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 10 })));
    [alice] = (await retrying('registering buyers', () => registerBuyers(t, 1))) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const seatStatus = async (seat: string) => {
    const map = await t.http.get(`/v1/shows/${showId}/seats`);
    expectStatus(map, 200);
    return (map.body.seats as { seat: string; status: string }[]).find((s) => s.seat === seat)!.status;
  };

  it('a hold that became a booking answers 409 HOLD_CONFIRMED, also after cancellation, and its seats stay booked', async () => {
    const booking = await confirmedBooking(t, showId, [seats[0]!], alice.token);
    for (let i = 0; i < 2; i++) expectProblem(await t.http.delete(`/v1/holds/${booking.hold_id}`, alice.token), 409, 'HOLD_CONFIRMED');
    expect(await seatStatus(seats[0]!)).toBe('booked');
    expect((await t.http.get(`/v1/bookings/${booking.booking_id}`, alice.token)).body.status).toBe('confirmed');
    expect((await t.http.get(`/v1/holds/${booking.hold_id}`, alice.token)).body.status).toBe('confirmed');

    expectStatus(await t.http.post(`/v1/bookings/${booking.booking_id}/cancel`, {}, alice.token), 200);
    expectProblem(await t.http.delete(`/v1/holds/${booking.hold_id}`, alice.token), 409, 'HOLD_CONFIRMED');
  });

  it('a hold being paid answers 409 HOLD_PAYING, then HOLD_CONFIRMED once paid', async () => {
    const holdId = await holdSeats(t, showId, [seats[1]!], alice.token);
    const paying = postBooking(t, { hold_id: holdId, payment_method: 'pm_card_slow' }, alice.token, newKey('slow'));
    await until('the hold to be paying', async () => (await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status === 'paying', 5000, 20);
    expectProblem(await t.http.delete(`/v1/holds/${holdId}`, alice.token), 409, 'HOLD_PAYING');
    const paid = await paying;
    expectStatus(paid, 201);
    // The test service waits 2 s for the provider, so the slow card's answer comes by reconciliation.
    await until('the booking to be confirmed', async () =>
      (await t.http.get(`/v1/bookings/${paid.body.booking_id}`, alice.token)).body.status === 'confirmed', 20_000);
    expectProblem(await t.http.delete(`/v1/holds/${holdId}`, alice.token), 409, 'HOLD_CONFIRMED');
  });

  it('an active hold, also one whose payment was declined, is released with 204, and again with 204', async () => {
    const holdId = await holdSeats(t, showId, [seats[2]!], alice.token);
    const declined = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey('declined'));
    expect(declined.body.status).toBe('failed');
    expectStatus(await t.http.delete(`/v1/holds/${holdId}`, alice.token), 204);
    expectStatus(await t.http.delete(`/v1/holds/${holdId}`, alice.token), 204);
    expect(await seatStatus(seats[2]!)).toBe('available');
  });
});
