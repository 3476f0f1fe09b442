// A checked-in booking is not cancellable (API.md "Bookings and payment",
// DESIGN.md invariant 10): otherwise a buyer checks in, cancels, is refunded, and
// the seat is sold again — two people at the gate for one seat. A check-in and a
// cancellation arriving together resolve in one order, never both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { describeAnswer } from '../support/problems.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, outboxSettled, refundsFor, retrying, sleep, staffUser, startService, until,
  waitForTickets, type TicketView,
} from './helpers.js';

const TRIALS = 50;

describe('check-in and cancellation of one booking', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;
  let staff: Buyer;
  let next = 0;
  const take = (n: number) => { const s = seats.slice(next, next + n); next += n; return s; };

  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 4, seatsPerRow: 20, per_user_limit: 80 })));
    [alice] = (await retrying('registering a buyer', () => registerBuyers(t, 1))) as [Buyer];
    staff = await retrying('registering staff', () => staffUser(t));
  });
  afterAll(async () => { await closeService(t); });

  const scan = (code: string) => t.http.post('/v1/checkin', { code }, staff.token);
  const cancel = (id: string) => t.http.post(`/v1/bookings/${id}/cancel`, {}, alice.token);

  /** What the database says about one single-seat booking. */
  async function stateOf(bookingId: string, ticketId: string, seat: string) {
    const db = t.service.ctx.db;
    const b = await db.query<{ status: string }>('select status from bookings where id = $1', [bookingId]);
    const s = await db.query<{ status: string; booking_id: string | null }>(
      'select status, booking_id from show_seats where show_id = $1 and seat_id = $2', [showId, seat]);
    const r = await db.query<{ n: number }>('select count(*)::int as n from refunds where booking_id = $1', [bookingId]);
    const tk = await db.query<{ status: string; checked_in: boolean }>(
      'select status, checked_in_at is not null as checked_in from tickets where id = $1', [ticketId]);
    return { booking: b.rows[0]!.status, seat: s.rows[0]!, refunds: r.rows[0]!.n, ticket: tk.rows[0]! };
  }

  it('check in, then cancel: 409 NOT_CANCELLABLE, no refund, the seat stays booked', async () => {
    const [seat] = take(1);
    const b = await confirmedBooking(t, showId, [seat!], alice.token);
    const [ticket] = await waitForTickets(t, b.booking_id, 1, alice.token);
    expectStatus(await scan(ticket!.code), 200);

    expectProblem(await cancel(b.booking_id), 409, 'NOT_CANCELLABLE');
    expectProblem(await cancel(b.booking_id), 409, 'NOT_CANCELLABLE');
    const view = await t.http.get(`/v1/bookings/${b.booking_id}`, alice.token);
    expect(view.body.status).toBe('confirmed');
    expect(view.body.refund).toBeUndefined();
    expect(await stateOf(b.booking_id, ticket!.ticket_id, seat!)).toEqual({
      booking: 'confirmed', seat: { status: 'booked', booking_id: b.booking_id }, refunds: 0, ticket: { status: 'valid', checked_in: true },
    });
    await until('the outbox to settle', () => outboxSettled(t), 30_000);
    expect(refundsFor(t, b.booking_id), 'refunds at the simulator').toHaveLength(0);
  });

  it(`check-in (staff) and cancel (owner) fired together resolve in one order, never both — ${TRIALS} trials`, async () => {
    // Set-up: TRIALS confirmed single-seat bookings with their tickets issued.
    const prepared: { bookingId: string; seat: string; ticket: TicketView }[] = [];
    for (let i = 0; i < TRIALS; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, TRIALS - i) }, async () => {
        const [seat] = take(1);
        const b = await retrying('booking', () => confirmedBooking(t, showId, [seat!], alice.token));
        const [ticket] = await waitForTickets(t, b.booking_id, 1, alice.token);
        return { bookingId: b.booking_id, seat: seat!, ticket: ticket! };
      }));
      prepared.push(...batch);
    }

    const failures: string[] = [];
    const tally = { checkedIn: 0, cancelled: 0 };
    for (const [i, p] of prepared.entries()) {
      // A small stagger on alternate sides, so that both orders really happen.
      const lag = i % 5;
      const [checkIn, cancelled] = await Promise.all([
        (i % 2 ? sleep(lag) : Promise.resolve()).then(() => scan(p.ticket.code)),
        (i % 2 ? Promise.resolve() : sleep(lag)).then(() => cancel(p.bookingId)),
      ]);
      const state = await stateOf(p.bookingId, p.ticket.ticket_id, p.seat);
      const said = `check-in ${describeAnswer(checkIn)} | cancel ${describeAnswer(cancelled)} | db ${JSON.stringify(state)}`;
      if (checkIn.status === 200 && cancelled.status === 409 && cancelled.body?.code === 'NOT_CANCELLABLE') {
        tally.checkedIn++;
        const want = { booking: 'confirmed', seat: { status: 'booked', booking_id: p.bookingId }, refunds: 0, ticket: { status: 'valid', checked_in: true } };
        if (JSON.stringify(state) !== JSON.stringify(want)) failures.push(`trial ${i}: checked in, but ${said}`);
      } else if (cancelled.status === 200 && checkIn.status === 410 && checkIn.body?.code === 'TICKET_VOID') {
        tally.cancelled++;
        const want = { booking: 'cancelled', seat: { status: 'available', booking_id: null }, refunds: 1, ticket: { status: 'void', checked_in: false } };
        if (JSON.stringify(state) !== JSON.stringify(want)) failures.push(`trial ${i}: cancelled, but ${said}`);
      } else {
        failures.push(`trial ${i}: ${said}`);
      }
    }
    console.log(`check-in vs cancel, ${TRIALS} trials: check-in first ${tally.checkedIn}, cancel first ${tally.cancelled}`);
    expect(failures).toEqual([]);
    expect(tally.checkedIn + tally.cancelled).toBe(TRIALS);

    // Money follows: a refund at the simulator exactly for the cancelled ones.
    await until('the outbox to settle', () => outboxSettled(t), 30_000);
    for (const p of prepared) {
      const cancelledNow = (await t.http.get(`/v1/bookings/${p.bookingId}`, alice.token)).body.status === 'cancelled';
      expect(refundsFor(t, p.bookingId), `simulator refunds of ${p.bookingId}`).toHaveLength(cancelledNow ? 1 : 0);
    }
  });
});
