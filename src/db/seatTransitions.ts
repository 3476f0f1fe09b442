// Seats and holds: every statement that writes show_seats or holds is here, whole (a
// lint, test/db/seat-writes.test.ts, fails on one anywhere else). A hold's move and
// its seats' move are one statement; the booking request's two statements also carry
// what must commit with them (the pending booking and its attempt; the confirmation,
// its sold rows and ticket job; the request's Idempotency-Key), so that each is one
// round trip. Every move is guarded by its `from` states (SEAT_MOVES, HOLD_MOVES in
// src/domain/states.ts), so an illegal move changes no row. Seats are locked in
// ascending (show, seat) order (docs/locking.md rules 2, 3).
import type { Queryable } from './client.js';
import type { ClaimOutcome } from '../domain/holds.js';
import { SEAT_MOVES, HOLD_MOVES, BOOKING_MOVES, type SeatMove } from '../domain/states.js';
import type { KeyClaim, KeyedAnswer, KeyRow } from './idempotency.js';
import { statusIn } from './statusGuard.js';
import { movedAway } from './showMove.js';

/**
 * The shape every seat move but the claim shares: `mine` picks and locks the seats the
 * move may change (its guard), `moved` changes exactly those, and only `when` it holds.
 * `before` adds CTEs that `where` and `when` may read; `skipLocked` takes at most that
 * many rows (a SQL parameter) and never waits, for the sweeper, which cannot follow one
 * show's order.
 */
function seatMove(m: { move: SeatMove; where: string; set: string; before?: string; when?: string; skipLocked?: string }): string {
  const { from, to } = SEAT_MOVES[m.move];
  return `with ${m.before ? `${m.before},` : ''}
     mine as (
       select s.show_id, s.seat_id from show_seats s
        where ${statusIn(from, 's.status')} and ${m.where}
        order by s.show_id, s.seat_id
        ${m.skipLocked ? `limit ${m.skipLocked} for update skip locked` : 'for update'}
     ), moved as (
       update show_seats s set status = '${to}', ${m.set}
         from mine where s.show_id = mine.show_id and s.seat_id = mine.seat_id${m.when ? ` and ${m.when}` : ''}
       returning s.show_id, s.seat_id
     )`;
}

const FREE = `hold_id = null, holder_id = null, hold_expires_at = null, version = nextval('seat_version_seq')`;
const SEAT_IDS = `select coalesce(array_agg(seat_id order by seat_id), '{}') as seats from moved`;

/**
 * Show creation: one `available` row per hall seat, with where it sits for best
 * available (row_no, seat_no, row_mid2, section: migrations/0020_claim_best_seats.sql).
 */
export async function createShowSeats(db: Queryable, showId: string, hallId: string): Promise<number> {
  const r = await db.query(
    `insert into show_seats (show_id, seat_id, tier, status, row_no, seat_no, row_mid2, section)
     select $1, seat_id, tier, 'available', dense_rank() over (order by first_pos)::int, number, mid2, section
       from (select seat_id, tier, number, section, min(position) over w as first_pos,
                    (min(number) over w + max(number) over w)::int as mid2
               from hall_seats where hall_id = $2
             window w as (partition by section, row_label)) h`,
    [showId, hallId],
  );
  return r.rowCount;
}

/**
 * Show creation on a shard (which has no halls): one `available` row per seat given
 * (in the hall's layout order), with where it sits worked out as createShowSeats does
 * from the hall, in one statement.
 */
export async function createShowSeatsFrom(
  db: Queryable, showId: string,
  seats: readonly { seat_id: string; tier: string; row: string; number: number; section: string | null }[],
): Promise<number> {
  const r = await db.query(
    `insert into show_seats (show_id, seat_id, tier, status, row_no, seat_no, row_mid2, section)
     select $1, seat_id, tier, 'available', dense_rank() over (order by first_pos)::int, number, mid2, section
       from (select seat_id, tier, number, section, min(pos) over w as first_pos,
                    (min(number) over w + max(number) over w)::int as mid2
               from unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[])
                      with ordinality as s (seat_id, tier, row_label, number, section, pos)
             window w as (partition by section, row_label)) h`,
    [showId, seats.map((s) => s.seat_id), seats.map((s) => s.tier), seats.map((s) => s.row), seats.map((s) => s.number), seats.map((s) => s.section)],
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
 * claim: available, or held past its expiry → held, and the hold created `active`. One
 * round trip that takes every seat or none; the statement is the SQL function
 * claim_seats (latest definition migrations/0022_show_cancellation.sql). "moved"
 * when the seats were gone because the show's inventory moved to another database.
 */
export async function claimSeats(
  db: Queryable,
  c: { showId: string; holdId: string; userId: string; seats: readonly string[] },
): Promise<ClaimResult> {
  const r = await db.query<ClaimResult>('select * from claim_seats($1, $2, $3, $4::text[])', [
    c.showId, c.holdId, c.userId, c.seats,
  ]);
  const result = r.rows[0]!;
  // A claim that waited for a move's seat locks finds the seats gone: say why.
  if ((result.outcome === 'unknown_seats' || result.outcome === 'show_not_found') && await movedAway(db, c.showId)) {
    return { ...result, outcome: 'moved' };
  }
  return result;
}

/** What claim_best_seats answered: the claim's fields, with the seats it chose. */
export interface BestClaimResult extends Omit<ClaimResult, 'outcome' | 'taken'> {
  outcome: ClaimOutcome;
  seats: string[] | null;
}

/**
 * claim best available: `count` adjacent free seats matching the filters, chosen and
 * held in one round trip, all or none, under the same per-user limit as claimSeats;
 * the statement is the SQL function claim_best_seats (migrations/0020_claim_best_seats.sql).
 */
export async function claimBestSeats(
  db: Queryable,
  c: { showId: string; holdId: string; userId: string; count: number; section: string | null; tier: string | null; maxPrice: number | null },
): Promise<BestClaimResult> {
  const r = await db.query<BestClaimResult>('select * from claim_best_seats($1, $2, $3, $4::int, $5, $6, $7::bigint)', [
    c.showId, c.holdId, c.userId, c.count, c.section, c.tier, c.maxPrice,
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

/** Holds: active, past its expiry → expired (the sweeper; reads the same as before, see findHold in src/db/holds.ts). */
export async function expireLapsedHolds(db: Queryable): Promise<number> {
  const r = await db.query(
    `update holds set status = '${HOLD_MOVES.expire.to}' where ${statusIn(HOLD_MOVES.expire.from)} and expires_at <= bo_now()`,
  );
  return r.rowCount;
}

/** What a hold just became when it entered payment: the pending booking's fields. */
export interface EnteredPayment {
  show_id: string;
  seats: string[];
  amount: number;
  currency: string;
  created_at: Date;
}

/** What the booking request's first statement did. */
export interface Entry {
  /** The request's key is now this request's (new, past its time, or left by a request that died before entering payment). */
  claimed: boolean;
  /** The hold entered payment (only when `claimed`): the pending booking's fields. */
  entered: EnteredPayment | null;
  /** When not `claimed`: the key as it stood (null: another request claimed it meanwhile). */
  key: KeyRow | null;
}

/**
 * enter payment, the booking request's first statement (one round trip, no transaction
 * around it). The caller's hold, if payable, is locked first; then the request's
 * Idempotency-Key is claimed, noting the booking only when the hold is payable; only
 * if the claim took does the hold become `paying` (its expiry extended once, on the
 * first attempt), its seats `paying` (in seat order), and a pending booking with one
 * payment attempt is recorded — all before the provider is called. Payable: the
 * caller's active hold, unexpired, whose show has not started (a seat for a show
 * already running is not sold) nor been cancelled and, for a show that sells through a waiting room,
 * `admittedShowId` (the show of the caller's verified admission token) is that show, or
 * the hold is a waiting list's offer (it needs no admission).
 * `holdId` null (a body that is not valid) claims the key only. A hold whose seats are
 * not all its own (it cannot happen to an unexpired hold) aborts the statement with
 * every change it made (bo_assert, migrations/0013_guarded_statements.sql): a 5xx.
 */
export async function enterPayment(
  db: Queryable,
  p: {
    holdId: string | null; userId: string; bookingId: string; attemptId: string; paymentMethod: string | null;
    reconcileAfterSeconds: number; admittedShowId: string | null; key: KeyClaim;
  },
): Promise<Entry> {
  const r = await db.query<EnteredPayment & KeyRow & { claimed: boolean; key_state: KeyRow['state'] | null }>(
    `${seatMove({
      move: 'enterPayment',
      before: `payable as (
       select h.id from holds h join shows s on s.id = h.show_id
        where h.id = $1 and h.user_id = $2 and ${statusIn(HOLD_MOVES.enterPayment.from, 'h.status')} and h.expires_at > bo_now()
          and s.starts_at > bo_now()
          and (not s.waiting_room or s.id = $3 or exists (select 1 from waitlist_entries w where w.hold_id = h.id))
          and not exists (select 1 from show_cancellations c where c.show_id = h.show_id)
          for update of h
     ), claim as (
       insert into idempotency_keys (user_id, key, fingerprint, state, lease_until, booking_id)
       values ($2, $8, $9, 'in_flight', now() + make_interval(secs => $10::int), case when exists (select 1 from payable) then $4::text end)
       on conflict (user_id, key) do update
         set fingerprint = excluded.fingerprint, state = 'in_flight', lease_until = excluded.lease_until, booking_id = excluded.booking_id,
             response_status = null, response_body = null, created_at = now()
       where (idempotency_keys.created_at < now() - make_interval(secs => $11::int)
              and (idempotency_keys.state = 'done' or idempotency_keys.lease_until < now()))
          or (idempotency_keys.state = 'in_flight' and idempotency_keys.lease_until < now()
              and idempotency_keys.fingerprint = excluded.fingerprint and idempotency_keys.booking_id is null)
       returning 1
     ), known as (
       select fingerprint, state, response_status, response_body, booking_id, lease_until < now() as expired
         from idempotency_keys where user_id = $2 and key = $8
     ), hold as (
       update holds h
          set status = '${HOLD_MOVES.enterPayment.to}', extended = true,
              expires_at = case when h.extended then h.expires_at
                                else bo_now() + make_interval(secs => s.hold_ttl_seconds) end
         from shows s
        where h.id = (select id from payable) and ${statusIn(HOLD_MOVES.enterPayment.from, 'h.status')}
          and s.id = h.show_id and exists (select 1 from claim)
       returning h.show_id, h.seats, h.amount, h.currency, h.expires_at
     )`,
      where: 's.show_id = (select show_id from hold) and s.hold_id = $1',
      set: 'hold_expires_at = (select expires_at from hold)',
    })}, booking as (
       insert into bookings (id, hold_id, user_id, show_id, amount, currency, status, payment_method)
       select $4, $1, $2, show_id, amount, currency, 'pending', $5 from hold
       returning created_at
     ), attempt as (
       insert into payment_attempts (id, booking_id, hold_id, amount, currency, payment_method, status, next_check_at)
       select $6, $4, $1, amount, currency, $5, 'created', bo_now() + make_interval(secs => $7::int) from hold
     )
     select exists (select 1 from claim) as claimed,
            hold.show_id, hold.seats, hold.amount, hold.currency, (select created_at from booking) as created_at,
            known.fingerprint, known.state as key_state, known.response_status, known.response_body, known.booking_id, known.expired
       from (select 1) one left join hold on true left join known on true
      where case when hold.show_id is null then true
                 else bo_assert((select count(*) from moved) = cardinality(hold.seats), 'hold ' || $1 || ' does not own all its seats') end`,
    [p.holdId, p.userId, p.admittedShowId, p.bookingId, p.paymentMethod, p.attemptId, p.reconcileAfterSeconds,
      p.key.key, p.key.fingerprint, p.key.leaseSeconds, p.key.ttlSeconds],
  );
  const row = r.rows[0]!;
  const entered = row.show_id === null ? null
    : { show_id: row.show_id, seats: row.seats, amount: row.amount, currency: row.currency, created_at: row.created_at };
  const key = row.claimed || row.key_state === null ? null : {
    fingerprint: row.fingerprint, state: row.key_state, response_status: row.response_status, response_body: row.response_body,
    booking_id: row.booking_id, expired: row.expired,
  };
  return { claimed: row.claimed, entered, key };
}

/**
 * book: a payment that succeeded, applied to its pending booking in one statement,
 * all or nothing. The booking row is locked first (the order every source of an
 * outcome takes: request, webhook and reconciler queue on it); then the hold's paying
 * seats, in seat order. Only when the booking was pending, its hold paying and every
 * one of the booking's `seatCount` seats still the hold's, and its show not cancelled
 * (a payment that succeeds after the cancellation is refunded): the seats become booked and
 * are recorded sold, the attempt records the provider's word, the booking and the hold
 * are confirmed, the tickets queued, and `answer` (the booking request's) stored under
 * its key. Otherwise it changes nothing and says so (false): the caller decides under
 * the booking's lock (src/app/bookings.ts applyPaymentOutcome).
 */
export async function confirmPayment(
  db: Queryable,
  b: { bookingId: string; holdId: string; showId: string; attemptId: string; paymentIntentId: string; seatCount: number; answer?: KeyedAnswer },
): Promise<boolean> {
  const r = await db.query<{ confirmed: boolean }>(
    `${seatMove({
      move: 'book',
      before: `locked as (
       select hold_id from bookings where id = $1 and ${statusIn(BOOKING_MOVES.confirm.from)} for update
     )`,
      where: 's.show_id = $3 and s.hold_id = (select hold_id from locked)',
      set: `booking_id = $1, hold_expires_at = null, version = nextval('seat_version_seq')`,
      when: `(select count(*) from mine) = $6::int
             and exists (select 1 from holds where id = $2 and ${statusIn(HOLD_MOVES.confirm.from)})
             and not exists (select 1 from show_cancellations where show_id = $3)`,
    })}, attempt as (
       update payment_attempts set status = 'succeeded', provider_payment_id = coalesce($5, provider_payment_id), resolved_at = now(),
              failure_code = null, failure_message = null
        where id = $4 and status in ('created', 'unknown') and exists (select 1 from moved)
     ), sold as (
       insert into booking_seats (booking_id, show_id, seat_id, sold) select $1, $3, seat_id, true from moved
     ), booking as (
       update bookings set status = '${BOOKING_MOVES.confirm.to}', updated_at = now()
        where id = $1 and ${statusIn(BOOKING_MOVES.confirm.from)} and exists (select 1 from moved)
       returning id
     ), hold as (
       update holds set status = '${HOLD_MOVES.confirm.to}' where id = $2 and ${statusIn(HOLD_MOVES.confirm.from)} and exists (select 1 from booking)
     ), tickets as (
       insert into outbox (topic, payload) select 'ticket.issue', jsonb_build_object('booking_id', id) from booking
     ), answered as (
       update idempotency_keys set state = 'done', lease_until = null, response_status = $7, response_body = $8::jsonb
        where user_id = $9 and key = $10 and exists (select 1 from booking)
     )
     select exists (select 1 from booking) as confirmed`,
    [b.bookingId, b.holdId, b.showId, b.attemptId, b.paymentIntentId, b.seatCount,
      b.answer?.status ?? null, b.answer ? JSON.stringify(b.answer.body) : null, b.answer?.userId ?? null, b.answer?.key ?? null],
  );
  return r.rows[0]!.confirmed;
}

/**
 * decline (a refused payment, under the booking's lock): the hold is active again until
 * its (already extended) expiry and its paying seats are held again, in one statement.
 * Returns the hold rows changed (0: the hold was not paying, and no seat moved).
 */
export async function declinePayment(tx: Queryable, b: { holdId: string; showId: string }): Promise<number> {
  const r = await tx.query<{ holds: number }>(
    `${seatMove({
      move: 'backToHeld',
      before: `hold as (
       update holds set status = '${HOLD_MOVES.decline.to}' where id = $2 and ${statusIn(HOLD_MOVES.decline.from)} returning id
     )`,
      where: 's.show_id = $1 and s.hold_id = $2',
      set: `version = nextval('seat_version_seq')`,
      when: 'exists (select 1 from hold)',
    })}
     select (select count(*) from hold)::int as holds`,
    [b.showId, b.holdId],
  );
  return r.rows[0]!.holds;
}

/**
 * seats lost (money taken for a hold that no longer has every seat, under the
 * booking's lock): the hold ends `expired` and the seats it still pays for are free,
 * in one statement. Returns the hold rows changed (0: the hold was not paying, and no seat moved).
 */
export async function loseSeats(tx: Queryable, b: { holdId: string; showId: string }): Promise<number> {
  const r = await tx.query<{ holds: number }>(
    `${seatMove({
      move: 'free',
      before: `hold as (
       update holds set status = '${HOLD_MOVES.seatsLost.to}' where id = $2 and ${statusIn(HOLD_MOVES.seatsLost.from)} returning id
     )`,
      where: `s.show_id = $1 and s.hold_id = $2 and s.status = 'paying'`,
      set: `${FREE}, booking_id = null`,
      when: 'exists (select 1 from hold)',
    })}
     select (select count(*) from hold)::int as holds`,
    [b.showId, b.holdId],
  );
  return r.rows[0]!.holds;
}

/**
 * free (a cancellation, under the booking's lock): the booking's booked seats become
 * available and are recorded unsold, in one statement; the seats freed. A booking's
 * seats were booked from its hold's paying seats and keep the hold's id until they
 * are freed (a seat that is not available always has one: show_seats' check in
 * migrations/0001_init.sql), so they are found through the hold's index
 * (migrations/0014_seats_by_hold.sql); `s.booking_id = $3` alone walked every seat of the show.
 */
export async function freeBookedSeats(tx: Queryable, b: { showId: string; holdId: string; bookingId: string }): Promise<string[]> {
  const r = await tx.query<{ seats: string[] }>(
    `${seatMove({
      move: 'free',
      where: `s.show_id = $1 and s.hold_id = $2 and s.booking_id = $3 and s.status = 'booked'`,
      set: `${FREE}, booking_id = null`,
    })}, unsold as (
       update booking_seats set sold = false where booking_id = $3
     )
     ${SEAT_IDS}`,
    [b.showId, b.holdId, b.bookingId],
  );
  return r.rows[0]!.seats;
}

/**
 * release, for a whole show (its cancellation, and each pass of the cancellation
 * worker: a payment declined after it puts its hold back to active): every active
 * hold of the show becomes `released` and its held seats available, in one
 * statement. Returns the holds released.
 */
export async function releaseShowHolds(db: Queryable, showId: string): Promise<number> {
  const r = await db.query<{ holds: number }>(
    `${seatMove({
      move: 'release',
      before: `hold as (
       update holds set status = '${HOLD_MOVES.release.to}'
        where show_id = $1 and ${statusIn(HOLD_MOVES.release.from)}
       returning id
     )`,
      where: 's.show_id = $1 and s.hold_id in (select id from hold)',
      set: FREE,
    })}
     select (select count(*) from hold)::int as holds`,
    [showId],
  );
  return r.rows[0]!.holds;
}

/** Deleting a show nothing was booked for (src/app/showCancellation.ts deleteShow): its holds. */
export async function deleteShowHolds(tx: Queryable, showId: string): Promise<number> {
  return (await tx.query('delete from holds where show_id = $1', [showId])).rowCount;
}

/** Deleting a show nothing was booked for: its seat rows. */
export async function deleteShowSeats(tx: Queryable, showId: string): Promise<number> {
  return (await tx.query('delete from show_seats where show_id = $1', [showId])).rowCount;
}

/**
 * free, for a batch of bookings cancelled together (a show's cancellation, under the
 * bookings' row locks): their booked seats become available and are recorded unsold,
 * in one statement, found through the holds' index. Returns the seats freed.
 */
export async function freeSeatsOfBookings(tx: Queryable, showId: string, b: { holdIds: readonly string[]; bookingIds: readonly string[] }): Promise<number> {
  const r = await tx.query<{ freed: number }>(
    `${seatMove({
      move: 'free',
      where: `s.show_id = $1 and s.hold_id = any($2::text[]) and s.booking_id = any($3::text[]) and s.status = 'booked'`,
      set: `${FREE}, booking_id = null`,
    })}, unsold as (
       update booking_seats set sold = false where booking_id = any($3::text[])
     )
     select count(*)::int as freed from moved`,
    [showId, b.holdIds, b.bookingIds],
  );
  return r.rows[0]!.freed;
}

/** What an offer to a waiting-list entry made: the hold, its seats (layout order) and expiry. */
export interface Offer {
  hold_id: string;
  seats: string[];
  expires_at: Date;
}

/**
 * offer (a waiting list's, under its show's list lock, see src/app/waitlist.ts): the
 * entry of `userId`, still waiting for `count` seats, gets a hold of `count` adjacent
 * free seats (available, or held past their expiry: waitlist_adjacent_free_seats in
 * migrations/0021_waiting_list.sql) for the show's hold_ttl_seconds, and becomes
 * `offered`; one statement, all or nothing. The seats are locked without waiting (a
 * seat someone is claiming or freeing right now is skipped, and this offer made on a
 * later pass): the pass never waits on a seat, so it never deadlocks with a claim or
 * a release that runs it. The buyer's other seats of the show (held and unexpired,
 * paying, booked) count against its per_user_limit, as in claim_seats: 'over_limit'
 * (nothing taken) when `count` more would pass it; null when no such seats could be taken.
 */
export async function offerSeats(db: Queryable, o: { showId: string; userId: string; count: number; holdId: string }): Promise<Offer | 'over_limit' | null> {
  const r = await db.query<{ seats: string[] | null; expires_at: Date | null; over_limit: boolean }>(
    `${seatMove({
      move: 'offer',
      before: `entry as (
       select w.user_id from waitlist_entries w
        where w.show_id = $1 and w.user_id = $2 and w.status = 'waiting' and w.count = $3::int
          for update
     ), show as (
       select price_tiers, currency, per_user_limit, bo_now() + make_interval(secs => hold_ttl_seconds) as expires_at from shows where id = $1
     ), over_limit as (
       select 1 from entry
        where $3::int + (select count(*) from show_seats o
                          where o.show_id = $1 and o.holder_id = $2
                            and (o.status in ('paying', 'booked') or (o.status = 'held' and o.hold_expires_at > bo_now())))
              > (select per_user_limit from show)
     ), picked as (
       select waitlist_adjacent_free_seats($1, $3::int) as seats where exists (select 1 from entry) and not exists (select 1 from over_limit)
     )`,
      where: `s.show_id = $1 and s.seat_id = any ((select seats from picked)::text[])
              and (s.status = 'available' or s.hold_expires_at <= bo_now())`,
      set: `hold_id = $4, holder_id = $2, hold_expires_at = (select expires_at from show), version = nextval('seat_version_seq')`,
      when: '(select count(*) from mine) = $3::int',
      skipLocked: '$3::int',
    })}, hold as (
       insert into holds (id, show_id, user_id, seats, amount, currency, expires_at)
       select $4, $1, $2, (select seats from picked),
              (select sum((sh.price_tiers ->> t.tier)::bigint) from show_seats t where t.show_id = $1 and t.seat_id in (select seat_id from moved)),
              sh.currency, sh.expires_at
         from show sh where exists (select 1 from moved)
       returning seats, expires_at
     ), offered as (
       update waitlist_entries set status = 'offered', hold_id = $4
        where show_id = $1 and user_id = $2 and exists (select 1 from hold)
     )
     select (select seats from hold), (select expires_at from hold), exists (select 1 from over_limit) as over_limit`,
    [o.showId, o.userId, o.count, o.holdId],
  );
  const row = r.rows[0]!;
  if (row.over_limit) return 'over_limit';
  return row.seats && row.expires_at ? { hold_id: o.holdId, seats: row.seats, expires_at: row.expires_at } : null;
}
