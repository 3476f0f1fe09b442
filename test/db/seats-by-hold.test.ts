// The statements that pick a hold's or a booking's seats (enter payment, decline,
// confirm, free, seats lost, release) find them through the hold's index, not by walking every seat of the
// show: on a stadium that walk was 60,000 rows per statement (migrations/0014).
// Read here as the rows of show_seats each move fetched (pg_stat_xact_user_tables),
// on a 2,000-seat show whose other seats are all held. Index entries a
// bitmap scan reads are not counted there (PostgreSQL has no per-transaction view
// of them): the planner's choice that read the show's whole primary key prefix
// inside a BitmapAnd, for want of statistics, is met by analyzing show_seats when a
// large show is created (src/app/catalog.ts), measured with auto_explain instead.
// Those statistics, taken before anything is held, say that no seat is: the held
// seats' expiry index (partial, `status = 'held'`) could then look as cheap as the
// hold's to the booking statement and the release, which read every held seat of
// every show through it (migrations/0015 keeps that index to the sweeper).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  claimSeats, confirmPayment, declinePayment, enterPayment, freeBookedSeats, loseSeats, releaseSeats,
} from '../../src/db/seatTransitions.js';
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
    // A busy on-sale: every seat but the measured two held, one seat a hold (as
    // bench:bookings holds them), so the hold index is as large as the show's part
    // of the primary key.
    const rest = seats.filter((s) => !MEASURED.includes(s));
    for (let i = 0; i < rest.length; i += 50) {
      await Promise.all(rest.slice(i, i + 50).map((seat, k) =>
        claimSeats(t.service.ctx.db, { showId, holdId: `hold_busy_${i + k}`, userId: others[(i + k) % 2]!.userId, seats: [seat] })));
    }
    // The statistics, taken when the show was created, say nothing is held: the held
    // seats' expiry index and the hold's index then cost the planner the same for the
    // statements below, and the one it meets first wins. Made here the expiry index,
    // as it was on bench:bookings' database, by creating it again as it is defined.
    const expiring = (await t.service.ctx.db.query<{ def: string }>("select indexdef as def from pg_indexes where indexname = 'show_seats_expiring'")).rows[0]!.def;
    await t.service.ctx.db.query('drop index show_seats_expiring');
    await t.service.ctx.db.query(expiring);
  });
  afterAll(async () => { await closeService(t); });

  /** Rows of show_seats this connection has read and not yet reported (PostgreSQL 15 keeps a backend's counts for up to a second before it does). */
  const readSoFar = async (tx: Queryable) => (await tx.query<{ rows: number }>(
    `select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int as rows
       from pg_stat_xact_user_tables where relname = 'show_seats'`)).rows[0]?.rows ?? 0;

  /** Runs one move in a transaction of its own; what it returned and how many show_seats rows it read. */
  async function measured<T>(move: (tx: Queryable) => Promise<T>, plan: 'generic' | 'custom' = 'generic'): Promise<{ result: T; rowsRead: number }> {
    return t.service.ctx.db.transaction(async (tx) => {
      // As a busy instance's connections run them: a prepared statement executed more
      // than five times is planned once, for any parameters (a generic plan), unless
      // plans for its actual parameters (custom) look cheaper; both are measured.
      await tx.query(`set local plan_cache_mode = force_${plan}_plan`);
      const before = await readSoFar(tx);
      const result = await move(tx);
      return { result, rowsRead: (await readSoFar(tx)) - before };
    });
  }

  /** The booking request's first statement for this hold, as the service runs it (key `n`, booking `bkg_${n}`). */
  const enter = (tx: Queryable, holdId: string, n: string) => enterPayment(tx, {
    holdId, userId: alice.userId, bookingId: `bkg_${n}`, attemptId: `pay_${n}`, paymentMethod: 'pm_card_visa',
    reconcileAfterSeconds: 35, admittedShowId: null, key: { key: n, fingerprint: n, leaseSeconds: 15, ttlSeconds: 86_400 },
  });

  it('enter payment, decline, confirm and free each read a handful of rows', async () => {
    const seats = MEASURED;
    const holdId = await holdSeats(t, showId, seats, alice.token);
    const where = { showId, holdId };

    const steps: [string, (tx: Queryable) => Promise<unknown>, unknown][] = [
      ['enter payment', async (tx) => (await enter(tx, holdId, 'by-hold-1')).entered?.seats, seats],
      ['decline', (tx) => declinePayment(tx, where), 1],
      ['enter payment again', async (tx) => (await enter(tx, holdId, 'by-hold-2')).entered?.seats, seats],
      ['confirm', (tx) => confirmPayment(tx, { ...where, bookingId: 'bkg_by-hold-2', attemptId: 'pay_by-hold-2', paymentIntentId: 'pi_by_hold', seatCount: 2 }), true],
      ['free the booking', (tx) => freeBookedSeats(tx, { ...where, bookingId: 'bkg_by-hold-2' }), seats],
    ];
    for (const [name, step, expected] of steps) {
      const { result, rowsRead } = await measured(step);
      expect(result, name).toEqual(expected);
      expect(rowsRead, `${name}: rows of show_seats read`).toBeGreaterThan(0);
      expect(rowsRead, `${name}: rows of show_seats read`).toBeLessThanOrEqual(MOST_ROWS_READ);
    }
    const left = await t.service.ctx.db.query<{ status: string }>(
      'select status from show_seats where show_id = $1 and seat_id = any($2::text[])', [showId, seats]);
    expect(left.rows.map((r) => r.status)).toEqual(['available', 'available']);
  });

  it.each(['generic', 'custom'] as const)('the booking statement and the release each read a handful of rows (%s plans)', async (plan) => {
    const seats = MEASURED;
    const paid = await holdSeats(t, showId, seats, alice.token);
    const entered = await measured((tx) => enter(tx, paid, `by_hold_${plan}`), plan);
    expect(entered.result.entered?.seats).toEqual(seats);
    expect(entered.rowsRead, 'enter payment with its booking: rows of show_seats read').toBeGreaterThan(0);
    expect(entered.rowsRead, 'enter payment with its booking: rows of show_seats read').toBeLessThanOrEqual(MOST_ROWS_READ);

    // The hold is paying now: lose its seats (free), hold them again, and release that hold.
    const lost = await measured((tx) => loseSeats(tx, { showId, holdId: paid }), plan);
    expect(lost.result).toBe(1);
    expect(lost.rowsRead, 'seats lost: rows of show_seats read').toBeGreaterThan(0);
    expect(lost.rowsRead, 'seats lost: rows of show_seats read').toBeLessThanOrEqual(MOST_ROWS_READ);
    const released = await holdSeats(t, showId, seats, alice.token);
    const release = await measured((tx) => releaseSeats(tx, released, alice.userId), plan);
    expect(release.result).toEqual({ released: true, seats });
    expect(release.rowsRead, 'release: rows of show_seats read').toBeGreaterThan(0);
    expect(release.rowsRead, 'release: rows of show_seats read').toBeLessThanOrEqual(MOST_ROWS_READ);
  });
});
