// The moves that pick a hold's or a booking's seats (enter payment, back to held,
// book, free) find them through the hold's index, not by walking every seat of the
// show: on a stadium that walk was 60,000 rows per statement (migrations/0014).
// Read here as the rows of show_seats each move fetched (pg_stat_xact_user_tables),
// with generic plans, on a 2,000-seat show three quarters held. Index entries a
// bitmap scan reads are not counted there (PostgreSQL has no per-transaction view
// of them): the planner's choice that read the show's whole primary key prefix
// inside a BitmapAnd, for want of statistics, is met by analyzing show_seats when a
// large show is created (src/app/catalog.ts), measured with auto_explain instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { bookPayingSeats, enterPaymentSeats, freeBookingSeats, returnSeatsToHeld } from '../../src/db/seatTransitions.js';
import type { Queryable } from '../../src/db/client.js';
import { closeService, holdSeats, startService } from '../bookings/helpers.js';

const SHOW_SEATS = 2000;
const MEASURED = ['K50', 'K51'];
/** A handful: the moved seats and a few more, far below the show's size. */
const MOST_ROWS_READ = 50;

describe("a hold's seats are found through its index", () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;
  beforeAll(async () => {
    t = await startService({ sweeper: false, payments: {} });
    let seats: string[];
    ({ showId, seats } = await createShow(t, { rows: 20, seatsPerRow: SHOW_SEATS / 20, per_user_limit: 1000 }));
    let others: Buyer[];
    [alice, ...others] = await registerBuyers(t, 3) as [Buyer, Buyer, Buyer];
    // A busy on-sale: most of the show held, so the hold index is about as large as
    // the show's part of the primary key.
    const rest = seats.filter((s) => !MEASURED.includes(s));
    for (let i = 0; i < SHOW_SEATS * 0.75; i += 100) await holdSeats(t, showId, rest.slice(i, i + 100), others[i < SHOW_SEATS * 0.375 ? 0 : 1]!.token);
  });
  afterAll(async () => { await closeService(t); });

  /** Rows of show_seats this connection has read and not yet reported (PostgreSQL 15 keeps a backend's counts for up to a second before it does). */
  const readSoFar = async (tx: Queryable) => (await tx.query<{ rows: number }>(
    `select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int as rows
       from pg_stat_xact_user_tables where relname = 'show_seats'`)).rows[0]?.rows ?? 0;

  /** Runs one move in a transaction of its own; what it returned and how many show_seats rows it read. */
  async function measured<T>(move: (tx: Queryable) => Promise<T>): Promise<{ result: T; rowsRead: number }> {
    return t.service.ctx.db.transaction(async (tx) => {
      // As a busy instance's connections run them: a prepared statement executed more
      // than five times is planned once, for any parameters (a generic plan).
      await tx.query('set local plan_cache_mode = force_generic_plan');
      const before = await readSoFar(tx);
      const result = await move(tx);
      return { result, rowsRead: (await readSoFar(tx)) - before };
    });
  }

  it('enter payment, back to held, book and free each read a handful of rows', async () => {
    const seats = MEASURED;
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
