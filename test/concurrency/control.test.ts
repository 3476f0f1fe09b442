// Prove the race, then the fix (STYLE.md habit 13). A naive claim — read the seat in
// one statement, write it in another — run through the same judge and the same load
// as the real claim must oversell; claim_seats never may. Without this control a
// green concurrency suite could also mean "the harness cannot see a double hold".
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { overlappingSetsViolations, sameSeatViolations, type HoldAttempt } from '../support/holdChecks.js';
import { seatRows, sleep, type SeatRow } from '../support/seatRows.js';
import { endPool } from '../support/database.js';

const CONTENDERS = 200;
const TRIALS = 10;
const POOL_SIZE = 40; // with the service's own pool of 20, well under max_connections 100

type Claim = (pool: pg.Pool, showId: string, seat: string, holdId: string, userId: string) => Promise<HoldAttempt>;

const won = (userId: string, seat: string, holdId: string): HoldAttempt => ({ buyer: userId, requested: [seat], status: 201, body: { hold_id: holdId, seats: [seat] } });
const lost = (userId: string, seat: string, taken: string[]): HoldAttempt => ({ buyer: userId, requested: [seat], status: 409, body: { code: 'SEAT_UNAVAILABLE', taken } });

/**
 * The classic bug: check in application code, then write unconditionally. Each claim
 * keeps one connection for its read and its write, as a request handler would, so at
 * most POOL_SIZE claims are in flight at once, like the service's own pool.
 */
const naiveClaim: Claim = async (pool, showId, seat, holdId, userId) => {
  const client = await pool.connect();
  try {
    const r = await client.query<{ free: boolean }>(
      `select status = 'available' or (status = 'held' and hold_expires_at <= bo_now()) as free
         from show_seats where show_id = $1 and seat_id = $2`,
      [showId, seat],
    );
    if (!r.rows[0]?.free) return lost(userId, seat, [seat]);
    await sleep(1); // a little work between read and write, as any real handler has
    await client.query(
      `update show_seats set status = 'held', hold_id = $3, holder_id = $4,
              hold_expires_at = bo_now() + interval '10 minutes', version = nextval('seat_version_seq')
        where show_id = $1 and seat_id = $2`,
      [showId, seat, holdId, userId],
    );
    return won(userId, seat, holdId);
  } finally {
    client.release();
  }
};

/** The product's claim (migrations/0002_claim_seats.sql), called the way src/db/holds.ts calls it. */
const realClaim: Claim = async (pool, showId, seat, holdId, userId) => {
  const r = await pool.query<{ outcome: string; taken: string[] | null }>(
    'select * from claim_seats($1, $2, $3, $4::text[])',
    [showId, holdId, userId, [seat]],
  );
  const { outcome, taken } = r.rows[0]!;
  if (outcome === 'held') return won(userId, seat, holdId);
  if (outcome === 'seat_unavailable') return lost(userId, seat, taken ?? []);
  return { buyer: userId, requested: [seat], status: 500, body: { code: outcome } };
};

describe('control: the same load through a naive read-then-write claim and through claim_seats', () => {
  let t: TestService;
  let pool: pg.Pool;
  let userIds: string[];
  let show: { showId: string; seats: string[] };

  beforeAll(async () => {
    t = await startTestService();
    pool = new pg.Pool({ connectionString: t.service.ctx.config.databaseUrl!, max: POOL_SIZE });
    // Holds reference users; the control needs ids, not sign-ins, so the rows are written directly.
    userIds = Array.from({ length: CONTENDERS }, (_, i) => `usr_control_${i}`);
    await pool.query(
      `insert into users (id, email, password_hash) select id, id || '@example.test', 'x' from unnest($1::text[]) as id`,
      [userIds],
    );
    show = await createShow(t, { rows: 2, seatsPerRow: 20, per_user_limit: 1000 });
    // Open every connection first, so both claims meet the same warm pool.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.query('select pg_sleep(0.05)')));
  });
  afterAll(async () => {
    if (pool) await endPool(pool);
    await t?.close();
  });

  async function runTrials(claim: Claim, seats: string[], tag: string) {
    const results: { seat: string; winners: number; problems: string[] }[] = [];
    for (const seat of seats) {
      const attempts = await Promise.all(userIds.map((u, i) => claim(pool, show.showId, seat, `hold_${tag}_${seat}_${i}`, u)));
      const [row] = await seatRows(t.service.ctx.db, show.showId, [seat]);
      results.push({ seat, winners: attempts.filter((a) => a.status === 201).length, problems: sameSeatViolations(seat, attempts, row) });
    }
    return results;
  }

  it(`the naive claim oversells (more than one winner for one seat) and the judge says so`, async () => {
    const results = await runTrials(naiveClaim, show.seats.slice(0, TRIALS), 'naive');
    const oversold = results.filter((r) => r.winners > 1);
    console.log(`control, naive claim: winners per seat ${results.map((r) => r.winners).join(' ')}`);
    expect(oversold.length, 'the harness must be able to see a double hold').toBeGreaterThan(0);
    for (const r of oversold) expect(r.problems.join('\n')).toMatch(/buyers were given seat/);
  });

  it('claim_seats under the same load gives every seat to exactly one buyer', async () => {
    const results = await runTrials(realClaim, show.seats.slice(TRIALS, 2 * TRIALS), 'real');
    console.log(`control, claim_seats: winners per seat ${results.map((r) => r.winners).join(' ')}`);
    for (const r of results) expect(r.problems, `seat ${r.seat}`).toEqual([]);
  });
});

describe('the judges notice broken outcomes (hand-made)', () => {
  const row = (seat_id: string, hold_id: string | null, holder_id: string | null = null): SeatRow => ({
    seat_id, status: hold_id ? 'held' : 'available', hold_id, holder_id, hold_expires_at: null, version: 1,
  });
  const w = (buyer: string, seats: string[], holdId: string): HoldAttempt => ({ buyer, requested: seats, status: 201, body: { hold_id: holdId, seats } });
  const l = (buyer: string, seats: string[], taken: string[]): HoldAttempt => ({ buyer, requested: seats, status: 409, body: { code: 'SEAT_UNAVAILABLE', taken } });
  const goodAttempts = [w('u1', ['A1', 'A2'], 'h1'), l('u2', ['A2', 'A3'], ['A2'])];
  const goodRows = [row('A1', 'h1', 'u1'), row('A2', 'h1', 'u1'), row('A3', null)];

  it('accepts a correct trial', () => {
    expect(overlappingSetsViolations(goodAttempts, goodRows)).toEqual([]);
    expect(sameSeatViolations('A1', [w('u1', ['A1'], 'h1'), l('u2', ['A1'], ['A1'])], row('A1', 'h1', 'u1'))).toEqual([]);
  });

  it.each([
    ['two winners for one seat', [w('u1', ['A1', 'A2'], 'h1'), w('u2', ['A2', 'A3'], 'h2')], [row('A1', 'h1', 'u1'), row('A2', 'h2', 'u2'), row('A3', 'h2', 'u2')], /two 201 answers|partial hold/],
    ['a partial hold', goodAttempts, [row('A1', 'h1', 'u1'), row('A2', null), row('A3', null)], /partial hold/],
    ['a 409 that took a seat', goodAttempts, [row('A1', 'h1', 'u1'), row('A2', 'h1', 'u1'), row('A3', 'h9', 'u2')], /which no 201 returned/],
    ['a 409 naming a seat nobody holds', [w('u1', ['A1'], 'h1'), l('u2', ['A2', 'A3'], ['A3'])], [row('A1', 'h1', 'u1'), row('A2', null), row('A3', null)], /no winner of this trial holds it/],
    ['a 409 naming no seat', [w('u1', ['A1'], 'h1'), l('u2', ['A1'], [])], [row('A1', 'h1', 'u1')], /names no taken seat/],
    ['a 5xx', [w('u1', ['A1'], 'h1'), { buyer: 'u2', requested: ['A1'], status: 503, body: { code: 'OVERLOADED' } }], [row('A1', 'h1', 'u1')], /5xx/],
  ] as const)('flags %s', (_name, attempts, rows, message) => {
    const problems = overlappingSetsViolations(attempts, rows);
    expect(problems.join('\n')).toMatch(message);
  });

  it('flags a seat refused only because of an expired hold', () => {
    const problems = overlappingSetsViolations([l('u2', ['A1'], ['A1'])], [row('A1', 'h_old', 'u1')], new Set(['h_old']));
    expect(problems.join('\n')).toMatch(/no winner of this trial holds it/);
  });

  it('flags two winners of one seat, and a row held by a loser', () => {
    expect(sameSeatViolations('A1', [w('u1', ['A1'], 'h1'), w('u2', ['A1'], 'h2')], row('A1', 'h2', 'u2')).join('\n')).toMatch(/2 buyers/);
    expect(sameSeatViolations('A1', [w('u1', ['A1'], 'h1'), l('u2', ['A1'], ['A1'])], row('A1', 'h2', 'u2')).join('\n')).toMatch(/the winner is hold h1/);
  });
});
