// Paying needs a hold that is still honoured, for a show that has not started
// (API.md "Bookings and payment": 409 HOLD_EXPIRED, nothing charged). Both are
// judged by the database clock, which these tests shift; the sweeper is paused
// so that only the payment's own guard can refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { dbNow, shiftClock } from '../../src/db/clock.js';
import {
  closeService, expectProblem, holdSeats, newKey, paymentIntentsFor, postBooking, retrying, startService,
} from './helpers.js';

describe('POST /v1/bookings after the hold or the sale has run out', () => {
  let t: TestService;
  let alice: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {}, sweeper: false });
    [alice] = (await retrying('registering a buyer', () => registerBuyers(t, 1))) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  /** Runs `f` with the database clock moved `seconds` ahead, then moves it back. */
  async function withClockAhead<T>(seconds: number, f: () => Promise<T>): Promise<T> {
    await shiftClock(t.service.ctx.db, seconds);
    try {
      return await f();
    } finally {
      await shiftClock(t.service.ctx.db, -seconds);
    }
  }

  async function expectNothingCharged(holdId: string, seats: string[], showId: string) {
    expect(paymentIntentsFor(t, { holdId }), 'PaymentIntents at the simulator').toEqual([]);
    const db = t.service.ctx.db;
    const b = await db.query('select id from bookings where hold_id = $1', [holdId]);
    expect(b.rows, 'bookings of the hold').toEqual([]);
    const s = await db.query<{ status: string }>('select status from show_seats where show_id = $1 and seat_id = any($2::text[])', [showId, seats]);
    expect(s.rows.map((r) => r.status)).toEqual(seats.map(() => 'held'));
  }

  it('refuses an expired hold (clock shifted past expires_at): 409 HOLD_EXPIRED, no PaymentIntent', async () => {
    const { showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 4, hold_ttl_seconds: 60 }));
    const mine = seats.slice(0, 2);
    const holdId = await holdSeats(t, showId, mine, alice.token);
    const expiresAt = new Date((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.expires_at);
    const ahead = (expiresAt.getTime() - (await dbNow(t.service.ctx.db)).getTime()) / 1000 + 5;
    const r = await withClockAhead(ahead, () =>
      postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, newKey('expired')));
    expectProblem(r, 409, 'HOLD_EXPIRED');
    await expectNothingCharged(holdId, mine, showId);
  });

  it('refuses a hold whose show has started, although the hold is still unexpired: 409 HOLD_EXPIRED, no PaymentIntent', async () => {
    const startsAt = new Date(Date.now() + 10 * 60_000);
    const { showId, seats } = await retrying('creating the show', () =>
      createShow(t, { rows: 1, seatsPerRow: 4, hold_ttl_seconds: 3600, starts_at: startsAt.toISOString() }));
    const mine = seats.slice(0, 2);
    const holdId = await holdSeats(t, showId, mine, alice.token);
    const expiresAt = new Date((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.expires_at);
    // One minute after the start, long before the hold's own expiry.
    const ahead = (startsAt.getTime() - (await dbNow(t.service.ctx.db)).getTime()) / 1000 + 60;
    const r = await withClockAhead(ahead, async () => {
      expect((await dbNow(t.service.ctx.db)).getTime()).toBeLessThan(expiresAt.getTime());
      return postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, newKey('started'));
    });
    expectProblem(r, 409, 'HOLD_EXPIRED');
    await expectNothingCharged(holdId, mine, showId);
    expect((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status).toBe('active');
  });
});
