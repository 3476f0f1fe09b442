// Model-based test of holds against the real service and PostgreSQL: random sequences
// of hold / release / read / clock moves, each answer predicted by a small model that
// reads time only from the database clock (bo_now()). After every step the invariants
// of DESIGN.md (2, 3) are checked against the rows, the holds table and the seat map.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbNow, shiftClock } from '../../src/db/clock.js';
import type { Queryable } from '../../src/db/client.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { postHold, seatRows, type SeatRow } from '../support/seatRows.js';

const SEATS = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'];
const TTL = 60;
const LIMIT = 4;
const BUYERS = 3;
const PRICE = 1000;
/** No hold may expire within this long after the model reads the clock (see settle). */
const GUARD_MS = 3_000;

interface ModelHold {
  id: string;
  buyer: number;
  seats: string[];
  expiresAt: number;
  /** Released by its buyer while still active (a release after expiry changes nothing: it stays expired). */
  released: boolean;
}
interface Model {
  /** Every hold the service granted in this run, in the order granted. */
  holds: ModelHold[];
}
interface Real {
  t: TestService;
  db: Queryable;
  showId: string;
  buyers: Buyer[];
  sweeper: boolean;
  lastVersion: number;
  /** The largest seat version right after the last map read. */
  seenAfterLastRead: number;
  /** Commands run (all of them check the invariants once). */
  steps: number;
  /** Hold answers seen, by status and code, across runs. */
  outcomes: Map<string, number>;
}

const isActive = (h: ModelHold, now: number) => !h.released && h.expiresAt > now;

function activeOwner(m: Model, seat: string, now: number): ModelHold | undefined {
  const owners = m.holds.filter((h) => isActive(h, now) && h.seats.includes(seat));
  if (owners.length > 1) throw new Error(`model broken: ${seat} in ${owners.length} active holds`);
  return owners[0];
}

/** The hold whose id the seat row should carry: the last one granted that asked for it. */
function lastClaimant(m: Model, seat: string): ModelHold | undefined {
  return m.holds.filter((h) => h.seats.includes(seat)).at(-1);
}

/**
 * Reads bo_now() and makes sure no live hold expires within GUARD_MS of it, moving the
 * DB clock past any that would (the service judges a moment after the model reads the
 * clock; a boundary in between would make either answer right). Returns the DB time.
 */
async function settle(m: Model, r: Real): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const now = (await dbNow(r.db)).getTime();
    const soon = m.holds.filter((h) => !h.released && h.expiresAt > now && h.expiresAt <= now + GUARD_MS);
    if (soon.length === 0) return now;
    await shiftClock(r.db, (Math.max(...soon.map((h) => h.expiresAt)) - now) / 1000 + 0.5);
  }
  throw new Error('settle: could not move the clock clear of expiries');
}

type Expected = { status: 201 } | { status: 400; code: 'VALIDATION_FAILED' } | { status: 409; code: 'SEAT_UNAVAILABLE'; taken: string[] } | { status: 409; code: 'LIMIT_EXCEEDED' };

/** What the contract says a hold request answers, in its order: 400 → SEAT_UNAVAILABLE → LIMIT_EXCEEDED. */
function expectedHold(m: Model, buyer: number, seats: readonly string[], now: number): Expected {
  if (seats.length > LIMIT) return { status: 400, code: 'VALIDATION_FAILED' };
  const taken = seats.filter((s) => activeOwner(m, s, now)).sort();
  if (taken.length > 0) return { status: 409, code: 'SEAT_UNAVAILABLE', taken };
  const mine = m.holds.filter((h) => h.buyer === buyer && isActive(h, now)).reduce((n, h) => n + h.seats.length, 0);
  if (mine + seats.length > LIMIT) return { status: 409, code: 'LIMIT_EXCEEDED' };
  return { status: 201 };
}

/** The hold statuses the holds table (or GET /v1/holds) may show for a model hold. */
function allowedHoldStatuses(h: ModelHold, now: number, sweeper: boolean, asRead: boolean): string[] {
  if (h.released) return ['released'];
  if (h.expiresAt > now) return ['active'];
  if (asRead) return ['expired'];
  return sweeper ? ['active', 'expired'] : ['active'];
}

/** A seat's effective state, as the claim would judge it: the active hold's id, or null. */
function effective(row: SeatRow, now: number): string | null {
  return row.status === 'held' && row.hold_expires_at!.getTime() > now ? row.hold_id : null;
}

/** Invariants after every step, against the rows, the holds table and the seat map. */
async function checkInvariants(m: Model, r: Real): Promise<void> {
  r.steps++;
  const now = await settle(m, r);
  const rows = await seatRows(r.db, r.showId);
  expect(rows.map((x) => x.seat_id)).toEqual(SEATS);

  // The seat rows: what the model says, seat by seat.
  for (const row of rows) {
    const owner = activeOwner(m, row.seat_id, now);
    expect(effective(row, now), `seat ${row.seat_id}: active hold`).toBe(owner?.id ?? null);
    const last = lastClaimant(m, row.seat_id);
    const free = { status: 'available', hold_id: null, holder_id: null, hold_expires_at: null };
    const heldByLast = last && { status: 'held', hold_id: last.id, holder_id: r.buyers[last.buyer]!.userId, hold_expires_at: new Date(last.expiresAt) };
    const actual = { status: row.status, hold_id: row.hold_id, holder_id: row.holder_id, hold_expires_at: row.hold_expires_at };
    if (!last || last.released) expect(actual, `seat ${row.seat_id} row`).toEqual(free);
    else if (isActive(last, now) || !r.sweeper) expect(actual, `seat ${row.seat_id} row`).toEqual(heldByLast);
    else expect([free, heldByLast], `seat ${row.seat_id} row (expired; swept or not)`).toContainEqual(actual);
  }

  // The holds table: exactly the holds granted (a refusal wrote none), each as granted.
  const holds = await r.db.query<{ id: string; user_id: string; seats: string[]; status: string; expires_at: Date }>(
    'select id, user_id, seats, status, expires_at from holds where show_id = $1 order by created_at, id',
    [r.showId],
  );
  expect(holds.rows.map((h) => h.id).sort(), 'hold rows of the show').toEqual(m.holds.map((h) => h.id).sort());
  for (const h of m.holds) {
    const row = holds.rows.find((x) => x.id === h.id)!;
    expect({ user: row.user_id, seats: row.seats, expires: row.expires_at.getTime() }).toEqual({ user: r.buyers[h.buyer]!.userId, seats: h.seats, expires: h.expiresAt });
    expect(allowedHoldStatuses(h, now, r.sweeper, false), `hold ${h.id} status`).toContain(row.status);
  }
  // (1) a seat is in at most one active hold, by the table alone.
  for (const seat of SEATS) {
    const active = holds.rows.filter((h) => h.status === 'active' && h.expires_at.getTime() > now && h.seats.includes(seat));
    expect(active.length, `active holds on ${seat}`).toBeLessThanOrEqual(1);
  }

  // (5) the seat map agrees with the model; its version never goes back, and it grows
  // when a seat row was written since the last read: a write newer than every row
  // seen after the last read committed after it, and a map read publishes every
  // committed change first (every seat write this model makes is one the map shows).
  const largestSeatVersion = async () => Math.max(...(await r.db.query<{ version: number }>(
    'select version from show_seats where show_id = $1', [r.showId])).rows.map((x) => x.version));
  const writtenBefore = await largestSeatVersion();
  const map = await r.t.http.get(`/v1/shows/${r.showId}/seats`);
  expect(map.status).toBe(200);
  const statuses = Object.fromEntries(map.body.seats.map((s: { seat: string; status: string }) => [s.seat, s.status]));
  expect(statuses, 'seat map').toEqual(Object.fromEntries(SEATS.map((s) => [s, activeOwner(m, s, now) ? 'held' : 'available'])));
  expect(map.body.version).toBeGreaterThanOrEqual(r.lastVersion);
  if (writtenBefore > r.seenAfterLastRead) expect(map.body.version, 'a seat write since the last read').toBeGreaterThan(r.lastVersion);
  r.lastVersion = map.body.version;
  r.seenAfterLastRead = await largestSeatVersion();
}

type Cmd = fc.AsyncCommand<Model, Real, false>;

class HoldCmd implements Cmd {
  constructor(readonly buyer: number, readonly seats: string[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const now = await settle(m, r);
    const before = await seatRows(r.db, r.showId);
    const want = expectedHold(m, this.buyer, this.seats, now);
    const got = await postHold(r.t, r.showId, this.seats, r.buyers[this.buyer]!.token);
    const answer = { status: got.status, ...(got.status === 201 ? {} : { code: got.body?.code }), ...(got.body?.code === 'SEAT_UNAVAILABLE' ? { taken: got.body.taken } : {}) };
    const key = [answer.status, answer.code].filter(Boolean).join(' ');
    r.outcomes.set(key, (r.outcomes.get(key) ?? 0) + 1);
    // (4) the service answers what the model predicts, `taken` included.
    expect(answer, `${this} at ${new Date(now).toISOString()}`).toEqual(want);
    const after = await seatRows(r.db, r.showId);
    if (got.status === 201) {
      const nowAfter = (await dbNow(r.db)).getTime();
      const expiresAt = Date.parse(got.body.expires_at);
      expect(got.body).toMatchObject({ show_id: r.showId, seats: this.seats, status: 'active', amount: PRICE * this.seats.length, currency: 'EUR' });
      expect(expiresAt).toBeGreaterThanOrEqual(now + TTL * 1000);
      expect(expiresAt).toBeLessThanOrEqual(nowAfter + TTL * 1000);
      // (2) a 201 took every requested seat, and nothing else.
      for (const row of after) {
        if (this.seats.includes(row.seat_id)) expect(row).toMatchObject({ status: 'held', hold_id: got.body.hold_id, holder_id: r.buyers[this.buyer]!.userId });
        else expect(effective(row, now), `seat ${row.seat_id} not asked for`).toBe(effective(before.find((b) => b.seat_id === row.seat_id)!, now));
      }
      m.holds.push({ id: got.body.hold_id, buyer: this.buyer, seats: [...this.seats], expiresAt, released: false });
    } else if (r.sweeper) {
      // (2) a refusal took nothing (the sweeper may have tidied expired rows meanwhile).
      expect(after.map((x) => effective(x, now)), 'a refusal changed seats').toEqual(before.map((x) => effective(x, now)));
    } else {
      expect(after, 'a refusal changed seat rows').toEqual(before);
    }
    await checkInvariants(m, r);
  }
  toString = () => `hold(b${this.buyer}, [${this.seats.join(',')}])`;
}

class ReleaseCmd implements Cmd {
  constructor(readonly actor: number, readonly pick: number) {}
  check = (m: Readonly<Model>) => m.holds.length > 0;
  async run(m: Model, r: Real) {
    const now = await settle(m, r);
    const hold = m.holds[this.pick % m.holds.length]!;
    const got = await r.t.http.delete(`/v1/holds/${hold.id}`, r.buyers[this.actor]!.token);
    if (hold.buyer !== this.actor) {
      expect(got.status, "another buyer's hold").toBe(404);
      expect(got.body.code).toBe('NOT_FOUND');
    } else {
      expect(got.status, `${this}`).toBe(204);
      if (isActive(hold, now)) hold.released = true;
    }
    await checkInvariants(m, r);
  }
  toString = () => `release(b${this.actor}, hold#${this.pick})`;
}

class GetHoldCmd implements Cmd {
  constructor(readonly actor: number, readonly pick: number) {}
  check = (m: Readonly<Model>) => m.holds.length > 0;
  async run(m: Model, r: Real) {
    const now = await settle(m, r);
    const hold = m.holds[this.pick % m.holds.length]!;
    const got = await r.t.http.get(`/v1/holds/${hold.id}`, r.buyers[this.actor]!.token);
    if (hold.buyer !== this.actor) {
      expect(got.status, "another buyer's hold").toBe(404);
    } else {
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ hold_id: hold.id, show_id: r.showId, seats: hold.seats, expires_at: new Date(hold.expiresAt).toISOString() });
      expect(allowedHoldStatuses(hold, now, r.sweeper, true), `${this}`).toContain(got.body.status);
    }
    await checkInvariants(m, r);
  }
  toString = () => `get(b${this.actor}, hold#${this.pick})`;
}

class AdvanceCmd implements Cmd {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await shiftClock(r.db, this.seconds);
    await checkInvariants(m, r);
  }
  toString = () => `advance(${this.seconds}s)`;
}

class ReadMapCmd implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    await settle(m, r);
    const first = await r.t.http.get(`/v1/shows/${r.showId}/seats`);
    expect(first.status).toBe(200);
    const again = await r.t.http.get(`/v1/shows/${r.showId}/seats`, undefined, { 'if-none-match': first.headers.etag as string });
    // Nothing changed in between, unless the sweeper freed an expired row.
    if (r.sweeper) expect([200, 304]).toContain(again.status);
    else expect(again.status).toBe(304);
    await checkInvariants(m, r);
  }
  toString = () => 'readMap()';
}

const buyer = fc.integer({ min: 0, max: BUYERS - 1 });
// Mostly sets the limit allows (1–2 seats most often, so buyers reach the limit), sometimes too many.
const seatSet = fc.oneof(
  { weight: 6, arbitrary: fc.shuffledSubarray(SEATS, { minLength: 1, maxLength: 2 }) },
  { weight: 3, arbitrary: fc.shuffledSubarray(SEATS, { minLength: 3, maxLength: LIMIT }) },
  { weight: 1, arbitrary: fc.shuffledSubarray(SEATS, { minLength: LIMIT + 1, maxLength: SEATS.length }) },
);
const commands = fc.commands<Model, Real, false>(
  [
    fc.oneof(
      { weight: 5, arbitrary: fc.tuple(buyer, seatSet).map(([b, s]) => new HoldCmd(b, s)) },
      { weight: 2, arbitrary: fc.tuple(buyer, fc.nat(20)).map(([b, k]) => new ReleaseCmd(b, k)) },
      { weight: 1, arbitrary: fc.tuple(buyer, fc.nat(20)).map(([b, k]) => new GetHoldCmd(b, k)) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: TTL * 1.5 }).map((s) => new AdvanceCmd(s)) },
      { weight: 1, arbitrary: fc.constant(null).map(() => new ReadMapCmd()) },
    ),
  ],
  { maxCommands: 25, size: 'max' },
);

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined;

describe('holds against a model (1 row of 6 seats, ttl 60 s, per_user_limit 4, 3 buyers)', () => {
  let t: TestService;
  let buyers: Buyer[];

  beforeAll(async () => {
    t = await startTestService({ sweeper: false });
    buyers = await registerBuyers(t, BUYERS);
  });
  afterAll(async () => { await t?.close(); });

  async function runProperty(sweeper: boolean) {
    const started = Date.now();
    let runs = 0;
    let steps = 0;
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        runs++;
        // A fresh show per run; it starts long after any clock moves the runs can make.
        const { showId } = await createShow(t, { rows: 1, seatsPerRow: 6, hold_ttl_seconds: TTL, per_user_limit: LIMIT, starts_at: new Date(Date.now() + 3 * 365 * 86_400_000).toISOString() });
        const created = await t.service.ctx.db.query<{ v: number }>('select max(version) as v from show_seats where show_id = $1', [showId]);
        const real: Real = { t, db: t.service.ctx.db, showId, buyers, sweeper, lastVersion: 0, seenAfterLastRead: created.rows[0]!.v, steps: 0, outcomes };
        await fc.asyncModelRun(() => ({ model: { holds: [] }, real }), cmds);
        steps += real.steps;
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
    console.log(`holds property (sweeper ${sweeper ? 'running' : 'paused'}): ${runs} runs, ${steps} commands run, in ${((Date.now() - started) / 1000).toFixed(1)} s; holds: ${[...outcomes].map(([k, n]) => `${k}×${n}`).join(', ')}`);
  }

  it('sweeper paused: every answer, row, hold and map state is the model\'s', async () => {
    await runProperty(false);
  }, 600_000);

  it('sweeper running: the same, with expired rows freed behind the model\'s back', async () => {
    t.service.sweeper.start();
    try {
      await runProperty(true);
    } finally {
      await t.service.sweeper.pause();
    }
  }, 600_000);
});
