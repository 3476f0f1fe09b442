// The seat state machine's one home: every write of show_seats is here (a lint,
// test/db/seat-writes.test.ts, fails on one anywhere else). Each move is one
// statement guarded by the move's `from` states (SEAT_MOVES in src/domain/states.ts),
// so an illegal move changes no row; each returns the seats it changed. Moves that
// lock seats lock them in ascending (show, seat) order (docs/locking.md rules 2, 3).
import type { Queryable } from './client.js';
import type { ClaimOutcome } from '../domain/holds.js';
import { SEAT_MOVES, HOLD_MOVES, type SeatMove } from '../domain/states.js';
import { statusIn } from './statusGuard.js';

/**
 * The shape every move but the claim shares: `mine` picks and locks the seats the
 * move may change (its guard), `moved` changes exactly those. `before` adds CTEs
 * that `where` may read; `skipLocked` takes at most that many rows (a SQL
 * parameter) and never waits, for the sweeper, which cannot follow one show's order.
 */
function seatMove(m: { move: SeatMove; where: string; set: string; before?: string; skipLocked?: string }): string {
  const { from, to } = SEAT_MOVES[m.move];
  return `with ${m.before ? `${m.before},` : ''}
     mine as (
       select s.show_id, s.seat_id from show_seats s
        where ${statusIn(from, 's.status')} and ${m.where}
        order by s.show_id, s.seat_id
        ${m.skipLocked ? `limit ${m.skipLocked} for update skip locked` : 'for update'}
     ), moved as (
       update show_seats s set status = '${to}', ${m.set}
         from mine where s.show_id = mine.show_id and s.seat_id = mine.seat_id
       returning s.show_id, s.seat_id
     )`;
}

const FREE = `hold_id = null, holder_id = null, hold_expires_at = null, version = nextval('seat_version_seq')`;
const SEAT_IDS = `select coalesce(array_agg(seat_id order by seat_id), '{}') as seats from moved`;

async function seatIds(db: Queryable, sql: string, params: unknown[]): Promise<string[]> {
  return (await db.query<{ seats: string[] }>(sql, params)).rows[0]!.seats;
}

/** Show creation: one `available` row per hall seat. */
export async function createShowSeats(db: Queryable, showId: string, hallId: string): Promise<number> {
  const r = await db.query(
    `insert into show_seats (show_id, seat_id, tier, status)
     select $1, seat_id, tier, 'available' from hall_seats where hall_id = $2`,
    [showId, hallId],
  );
  return r.rowCount;
}

export interface ClaimResult {
  outcome: ClaimOutcome;
  taken: string[] | null;
  expires_at: Date | null;
  amount: number | null;
  currency: string | null;
  seat_limit: number | null;
  seats_had: number | null;
  opens_at: Date | null;
}

/**
 * claim: available, or held past its expiry → held. One round trip that takes
 * every seat or none; the statement is the SQL function claim_seats (latest
 * definition migrations/0009_claim_without_admission.sql), which also creates the hold.
 */
export async function claimSeats(
  db: Queryable,
  c: { showId: string; holdId: string; userId: string; seats: readonly string[] },
): Promise<ClaimResult> {
  const r = await db.query<ClaimResult>('select * from claim_seats($1, $2, $3, $4::text[])', [
    c.showId, c.holdId, c.userId, c.seats,
  ]);
  return r.rows[0]!;
}

/**
 * release: the buyer's active, unexpired hold becomes `released` and its held
 * seats available, in one statement. Only rows still carrying the hold's id are
 * touched (re-checked after the lock), so a seat claimed by someone else meanwhile
 * is left alone. `released` is false when there was no such hold.
 */
export async function releaseSeats(db: Queryable, holdId: string, userId: string): Promise<{ released: boolean; seats: string[] }> {
  const r = await db.query<{ released: boolean; seats: string[] }>(
    `${seatMove({
      move: 'release',
      before: `hold as (
       update holds set status = '${HOLD_MOVES.release.to}'
        where id = $1 and user_id = $2 and ${statusIn(HOLD_MOVES.release.from)} and expires_at > bo_now()
       returning id, show_id
     )`,
      where: 's.show_id = (select show_id from hold) and s.hold_id = (select id from hold)',
      set: FREE,
    })}
     select exists (select 1 from hold) as released, (${SEAT_IDS}) as seats`,
    [holdId, userId],
  );
  return r.rows[0]!;
}

/**
 * expire (the sweeper): held seats whose hold has expired become available, so
 * the map's version grows. Never waits on a row lock. Returns (show, seat) pairs.
 */
export async function expireSeats(db: Queryable, batch: number): Promise<{ show_id: string; seat_id: string }[]> {
  const r = await db.query<{ show_id: string; seat_id: string }>(
    `${seatMove({ move: 'expire', where: 's.hold_expires_at <= bo_now()', set: FREE, skipLocked: '$1' })}
     select show_id, seat_id from moved`,
    [batch],
  );
  return r.rows;
}

/**
 * enter payment as CTEs (`mine`, `moved`) after the statement's own `before` CTEs,
 * for a statement that records the booking beside it in one round trip
 * (src/db/bookings.ts); `show`, `hold` and `until` are SQL expressions.
 */
export function enterPaymentMove(before: string, show: string, hold: string, until: string): string {
  return seatMove({ move: 'enterPayment', before, where: `s.show_id = ${show} and s.hold_id = ${hold}`, set: `hold_expires_at = ${until}` });
}

/** book as CTEs, the same way: the hold's paying seats become booked by the booking. */
export function bookMove(before: string, show: string, hold: string, booking: string): string {
  return seatMove({
    move: 'book', before, where: `s.show_id = ${show} and s.hold_id = ${hold}`,
    set: `booking_id = ${booking}, hold_expires_at = null, version = nextval('seat_version_seq')`,
  });
}

/** enter payment: the hold's held seats become paying until `until` (never reclaimed by expiry). */
export async function enterPaymentSeats(tx: Queryable, s: { showId: string; holdId: string; until: Date }): Promise<string[]> {
  return seatIds(tx, `${enterPaymentMove('', '$1', '$2', '$3')} ${SEAT_IDS}`, [s.showId, s.holdId, s.until]);
}

/** book: the hold's paying seats become booked by this booking. */
export async function bookPayingSeats(tx: Queryable, s: { showId: string; holdId: string; bookingId: string }): Promise<string[]> {
  return seatIds(tx, `${bookMove('', '$1', '$2', '$3')} ${SEAT_IDS}`, [s.showId, s.holdId, s.bookingId]);
}

/** back to held (a declined payment): the hold's paying seats are held again until the hold's expiry. */
export async function returnSeatsToHeld(tx: Queryable, s: { showId: string; holdId: string }): Promise<string[]> {
  return seatIds(tx,
    `${seatMove({ move: 'backToHeld', where: 's.show_id = $1 and s.hold_id = $2', set: `version = nextval('seat_version_seq')` })}
     ${SEAT_IDS}`,
    [s.showId, s.holdId]);
}

/**
 * free (a cancellation, or seats lost): every seat the hold is paying for or the booking has becomes available.
 * A booking's seats were booked from its hold's paying seats (`book` above) and keep
 * the hold's id until they are freed (a seat that is not available always has one:
 * show_seats' check in migrations/0001), so both kinds are found through the hold's
 * index (migrations/0014); `s.booking_id = $3` alone walked every seat of the show.
 */
export async function freeBookingSeats(tx: Queryable, s: { showId: string; holdId: string; bookingId: string }): Promise<string[]> {
  return seatIds(tx,
    `${seatMove({
      move: 'free',
      where: `s.show_id = $1 and s.hold_id = $2 and (s.status = 'paying' or (s.booking_id = $3 and s.status = 'booked'))`,
      set: `${FREE}, booking_id = null`,
    })}
     ${SEAT_IDS}`,
    [s.showId, s.holdId, s.bookingId]);
}
