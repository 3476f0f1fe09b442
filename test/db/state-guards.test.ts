// Every state move is guarded in its statement: a move from a state the table
// (src/domain/states.ts) does not allow changes no row, whatever the caller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { confirmPayment, declinePayment, enterPayment, freeBookedSeats, loseSeats, releaseSeats } from '../../src/db/seatTransitions.js';
import * as bookings from '../../src/db/bookings.js';
import { BOOKING_MOVES, SEAT_MOVES } from '../../src/domain/states.js';
import { closeService, confirmedBooking, holdSeats, startService } from '../bookings/helpers.js';

describe('guarded state moves', () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;
  beforeAll(async () => {
    t = await startService({ sweeper: false, payments: {} });
    ({ showId } = await createShow(t, { rows: 1, seatsPerRow: 6 }));
    [alice] = await registerBuyers(t, 1) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const statuses = async (seats: string[]) => (await t.service.ctx.db.query<{ status: string }>(
    'select status from show_seats where show_id = $1 and seat_id = any($2::text[]) order by seat_id', [showId, seats])).rows.map((r) => r.status);

  /** Some move of the table goes from `from` to `to`. */
  const allowed = (moves: Record<string, { from: readonly string[]; to: string }>, from: string, to: string) =>
    Object.values(moves).some((m) => m.to === to && m.from.includes(from));

  /** The booking request's first statement, by hand: the key `n` claimed and the hold entered into payment. */
  const enter = (holdId: string, n: string) => enterPayment(t.service.ctx.db, {
    holdId, userId: alice.userId, bookingId: `bkg_guard_${n}`, attemptId: `pay_guard_${n}`, paymentMethod: 'pm_card_visa',
    reconcileAfterSeconds: 35, admittedShowId: null, key: { key: `guard-${n}`, fingerprint: `guard-${n}`, leaseSeconds: 15, ttlSeconds: 86_400 },
  });

  it('the tables allow only the documented moves', () => {
    expect(allowed(SEAT_MOVES, 'paying', 'booked')).toBe(true);
    expect(allowed(SEAT_MOVES, 'available', 'booked')).toBe(false);
    expect(allowed(SEAT_MOVES, 'booked', 'held')).toBe(false);
    expect(allowed(BOOKING_MOVES, 'confirmed', 'cancelled')).toBe(true);
    // Only the organiser's cancellation (the show was cancelled) takes a pending booking whose payment then succeeded.
    expect((BOOKING_MOVES.cancel.from as readonly string[]).includes('pending')).toBe(false);
    expect((BOOKING_MOVES.organiserCancel.from as readonly string[]).includes('pending')).toBe(true);
    expect(allowed(BOOKING_MOVES, 'cancelled', 'confirmed')).toBe(false);
  });

  it('seat moves from the wrong state change no row; allowed ones move every seat of the hold', async () => {
    const db = t.service.ctx.db;
    const seats = ['A2', 'A1'];
    const holdId = await holdSeats(t, showId, seats, alice.token);
    const where = { showId, holdId, bookingId: 'bkg_guard_held' };
    // Held seats of an active hold cannot be booked, put back to held, lost or freed as a booking's.
    expect(await confirmPayment(db, { ...where, attemptId: 'pay_none', paymentIntentId: 'pi_none', seatCount: 2 })).toBe(false);
    expect(await declinePayment(db, where)).toBe(0);
    expect(await loseSeats(db, where)).toBe(0);
    expect(await freeBookedSeats(db, where)).toEqual([]);
    expect(await statuses(seats)).toEqual(['held', 'held']);

    expect((await enter(holdId, 'first')).entered?.seats).toEqual(seats); // the hold's seats, as asked for
    // A paying hold does not enter payment again (a new key is claimed, nothing else).
    expect(await enter(holdId, 'again')).toEqual({ claimed: true, entered: null, key: null });
    // A paying hold and its seats are not released.
    expect(await releaseSeats(db, holdId, alice.userId)).toEqual({ released: false, seats: [] });
    expect(await statuses(seats)).toEqual(['paying', 'paying']);
    expect(await declinePayment(db, where)).toBe(1);
    expect(await statuses(seats)).toEqual(['held', 'held']);
  });

  it('booking and hold moves from the wrong state change no row', async () => {
    const db = t.service.ctx.db;
    const b = await confirmedBooking(t, showId, ['A5'], alice.token);
    const where = { showId, holdId: b.hold_id, bookingId: b.booking_id };
    const confirm = () => confirmPayment(db, { ...where, attemptId: 'pay_none', paymentIntentId: 'pi_none', seatCount: 1 });
    expect(await confirm()).toBe(false);
    expect(await bookings.failBooking(db, b.booking_id)).toBe(0);
    expect(await bookings.markBookingRefunded(db, b.booking_id)).toBe(0);
    // A confirmed hold is not declined or lost, and its booked seat goes nowhere but free.
    expect(await declinePayment(db, where)).toBe(0);
    expect(await loseSeats(db, where)).toBe(0);
    expect(await statuses(['A5'])).toEqual(['booked']);
    expect((await bookings.findBooking(db, b.booking_id))!.status).toBe('confirmed');
    expect(await bookings.cancelBooking(db, b.booking_id)).toBe(1);
    expect(await bookings.cancelBooking(db, b.booking_id)).toBe(0);
    expect(await confirm()).toBe(false);
    expect((await bookings.findBooking(db, b.booking_id))!.status).toBe('cancelled');
  });
});
