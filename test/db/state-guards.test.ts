// Every state move is guarded in its statement: a move from a state the table
// (src/domain/states.ts) does not allow changes no row, whatever the caller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  bookPayingSeats, enterPaymentSeats, freeBookingSeats, releaseSeats, returnSeatsToHeld,
} from '../../src/db/seatTransitions.js';
import * as bookings from '../../src/db/bookings.js';
import { moveHold } from '../../src/db/holds.js';
import { canMove, BOOKING_MOVES, SEAT_MOVES } from '../../src/domain/states.js';
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

  it('the tables allow only the documented moves', () => {
    expect(canMove(SEAT_MOVES, 'paying', 'booked')).toBe(true);
    expect(canMove(SEAT_MOVES, 'available', 'booked')).toBe(false);
    expect(canMove(SEAT_MOVES, 'booked', 'held')).toBe(false);
    expect(canMove(BOOKING_MOVES, 'confirmed', 'cancelled')).toBe(true);
    expect(canMove(BOOKING_MOVES, 'pending', 'cancelled')).toBe(false);
    expect(canMove(BOOKING_MOVES, 'cancelled', 'confirmed')).toBe(false);
  });

  it('seat moves from the wrong state change no row; allowed ones return the seats, in seat order', async () => {
    const db = t.service.ctx.db;
    const seats = ['A2', 'A1'];
    const holdId = await holdSeats(t, showId, seats, alice.token);
    const where = { showId, holdId, bookingId: 'bkg_none' };
    // Held seats cannot be booked, put back to held, or freed as a booking's.
    expect(await bookPayingSeats(db, where)).toEqual([]);
    expect(await returnSeatsToHeld(db, where)).toEqual([]);
    expect(await freeBookingSeats(db, where)).toEqual([]);
    expect(await statuses(seats)).toEqual(['held', 'held']);

    expect(await enterPaymentSeats(db, { showId, holdId, until: new Date(Date.now() + 60_000) })).toEqual(['A1', 'A2']);
    expect(await enterPaymentSeats(db, { showId, holdId, until: new Date(Date.now() + 60_000) })).toEqual([]);
    // A paying seat is not released (the hold row is still active here: only its seats refuse).
    expect((await releaseSeats(db, holdId, alice.userId)).seats).toEqual([]);
    expect(await statuses(seats)).toEqual(['paying', 'paying']);
    expect(await returnSeatsToHeld(db, where)).toEqual(['A1', 'A2']);
    expect(await statuses(seats)).toEqual(['held', 'held']);
  });

  it('booking and hold moves from the wrong state change no row', async () => {
    const db = t.service.ctx.db;
    const b = await confirmedBooking(t, showId, ['A5'], alice.token);
    expect(await bookings.confirmBooking(db, b.booking_id)).toBe(0);
    expect(await bookings.failBooking(db, b.booking_id)).toBe(0);
    expect(await bookings.markBookingRefunded(db, b.booking_id)).toBe(0);
    expect(await moveHold(db, b.hold_id, 'decline')).toBe(0);
    expect(await moveHold(db, b.hold_id, 'confirm')).toBe(0);
    expect((await bookings.findBooking(db, b.booking_id))!.status).toBe('confirmed');
    // A booked seat goes nowhere but free.
    expect(await returnSeatsToHeld(db, { showId, holdId: b.hold_id })).toEqual([]);
    expect(await bookings.cancelBooking(db, b.booking_id)).toBe(1);
    expect(await bookings.cancelBooking(db, b.booking_id)).toBe(0);
    expect(await bookings.confirmBooking(db, b.booking_id)).toBe(0);
    expect((await bookings.findBooking(db, b.booking_id))!.status).toBe('cancelled');
  });
});
