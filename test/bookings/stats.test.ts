// The admin stats route and the booking metrics: figures computed by query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, confirmedBooking, holdSeats, outboxSettled, startService, until } from './helpers.js';

describe('admin stats and booking metrics', () => {
  let t: TestService;
  let showId: string;
  let a: Buyer;
  let b: Buyer;
  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId } = await createShow(t, { rows: 2, seatsPerRow: 10 }));
    [a, b] = (await registerBuyers(t, 2)) as [Buyer, Buyer];
  });
  afterAll(async () => { await closeService(t); });

  it('counts seats, holds, conflicts, bookings and refunds of a show, and double_sold is 0', async () => {
    const kept = await confirmedBooking(t, showId, ['A1', 'A2'], a.token);
    const cancelled = await confirmedBooking(t, showId, ['A3'], a.token);
    expect((await t.http.post(`/v1/bookings/${cancelled.booking_id}/cancel`, {}, a.token)).status).toBe(200);
    await holdSeats(t, showId, ['B1'], b.token);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['B1'] }, a.token)).status).toBe(409);
    await until('outbox settled', () => outboxSettled(t));

    const stats = await t.http.get(`/v1/admin/shows/${showId}/stats`, t.adminToken);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      seats: { available: 17, held: 1, booked: 2 },
      holds_created: 3,
      hold_conflicts: 1,
      bookings_confirmed: 1,
      refunds: 1,
      refunds_failed: 0,
      refunds_by_reason: { cancellation: 1, seats_lost: 0 },
      double_sold: 0,
    });
    // The two booked seats are the kept booking's (the cancelled one's seat is free again).
    const map = await t.http.get(`/v1/shows/${showId}/seats`);
    expect(map.body.seats.filter((s: { status: string }) => s.status === 'booked').map((s: { seat: string }) => s.seat)).toEqual(kept.seats);
    expect((await t.http.get(`/v1/admin/shows/${showId}/stats`, a.token)).status).toBe(403);
    expect((await t.http.get('/v1/admin/shows/show_nope/stats', t.adminToken)).status).toBe(404);
  });

  it('exposes bookings by status, payment outcomes, the reconciliation backlog, refunds and double sales in /metrics', async () => {
    const text = (await t.http.get('/metrics')).text;
    expect(text).toMatch(/boxoffice_bookings\{status="confirmed"\} [1-9]/);
    expect(text).toMatch(/boxoffice_bookings\{status="cancelled"\} 1/);
    expect(text).toMatch(/boxoffice_payment_outcomes_total\{outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/boxoffice_reconciliation_backlog 0/);
    expect(text).toMatch(/boxoffice_reconciliation_lag_seconds 0/);
    expect(text).toMatch(/boxoffice_refunds\{reason="cancellation",status="succeeded"\} 1/);
    expect(text).toMatch(/boxoffice_double_sold_seats 0/);
  });
});
