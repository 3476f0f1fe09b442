// The moves that pick a hold's or a booking's seats (enter payment, back to held,
// book, free) find them through the hold's index, not by walking every seat of the
// show: on a stadium that walk was 60,000 rows per statement (migrations/0014).
// Read here as the rows of show_seats each move's transaction read
// (pg_stat_xact_user_tables), on a 4,000-seat show with fresh statistics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { bookPayingSeats, enterPaymentSeats, freeBookingSeats, returnSeatsToHeld } from '../../src/db/seatTransitions.js';
import type { Queryable } from '../../src/db/client.js';
import { closeService, holdSeats, startService } from '../bookings/helpers.js';

const SHOW_SEATS = 4000;
/** A handful: the moved seats and their index entries, far below the show's size. */
const MOST_ROWS_READ = 50;

describe("a hold's seats are found through its index", () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;
  beforeAll(async () => {
    t = await startService({ sweeper: false, payments: {} });
    ({ showId } = await createShow(t, { rows: 20, seatsPerRow: SHOW_SEATS / 20 }));
    [alice] = await registerBuyers(t, 1) as [Buyer];
    await t.service.ctx.db.script('analyze show_seats');
  });
  afterAll(async () => { await closeService(t); });

  /** Runs one move in a transaction of its own; what it returned and how many show_seats rows the transaction read. */
  async function measured<T>(move: (tx: Queryable) => Promise<T>): Promise<{ result: T; rowsRead: number }> {
    return t.service.ctx.db.transaction(async (tx) => {
      const result = await move(tx);
      const [read] = (await tx.query<{ rows: number }>(
        `select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int as rows
           from pg_stat_xact_user_tables where relname = 'show_seats'`)).rows;
      return { result, rowsRead: read?.rows ?? 0 };
    });
  }

  it('enter payment, back to held, book and free each read a handful of rows', async () => {
    const seats = ['K50', 'K51'];
    const holdId = await holdSeats(t, showId, seats, alice.token);
    const where = { showId, holdId, bookingId: 'bkg_by_hold' };
    const until = new Date(Date.now() + 60_000);

    const steps: [string, (tx: Queryable) => Promise<string[]>][] = [
      ['enter payment', (tx) => enterPaymentSeats(tx, { showId, holdId, until })],
      ['back to held', (tx) => returnSeatsToHeld(tx, where)],
      ['enter payment again', (tx) => enterPaymentSeats(tx, { showId, holdId, until })],
      ['book', (tx) => bookPayingSeats(tx, where)],
      ['free the booking', (tx) => freeBookingSeats(tx, where)],
    ];
    for (const [name, step] of steps) {
      const { result, rowsRead } = await measured(step);
      expect(result, name).toEqual(seats);
      expect(rowsRead, `${name}: rows of show_seats read`).toBeGreaterThan(0);
      expect(rowsRead, `${name}: rows of show_seats read`).toBeLessThanOrEqual(MOST_ROWS_READ);
    }
    const left = await t.service.ctx.db.query<{ status: string }>(
      'select status from show_seats where show_id = $1 and seat_id = any($2::text[])', [showId, seats]);
    expect(left.rows.map((r) => r.status)).toEqual(['available', 'available']);
  });
});
