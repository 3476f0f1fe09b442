// Best available under concurrency, on the real service and PostgreSQL: 500 requests
// for 2–4 seats at once get disjoint runs of adjacent seats, and none is refused while
// a long enough run is left (judged from the rows afterwards: runs only shrink while
// nothing is released, so a run left at the end was there when the refusal was made).
// And one buyer's chosen and best-available requests, fired together, share one
// per_user_limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/client.js';
import type { LayoutRow } from '../../src/domain/layout.js';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { postHold, seededRandom, shuffled, tally } from '../support/seatRows.js';
import { adjacent, createLayoutShow, longestFreeRun, seatPlaces } from '../support/bestAvailable.js';
import type { HttpAnswer } from '../support/http.js';

const SEED = Number(process.env.BEST_SEED ?? Date.now() % 1_000_000);
const REQUESTS = 500;

/** A small stadium: sections of rows of uneven length, three tiers. */
function stadium(sections: number, rowsPerSection: number, seatsPerRow: number): LayoutRow[] {
  return Array.from({ length: sections }, (_, s) => Array.from({ length: rowsPerSection }, (_, r) => ({
    section: String(101 + s), row: String.fromCharCode(65 + r), seats: seatsPerRow - (r % 3), tier: s === 0 ? 'gold' : 'silver',
  }))).flat();
}

function bestHold(t: TestService, showId: string, count: number, token: string, filters: object = {}): Promise<HttpAnswer> {
  return t.http.post(`/v1/shows/${showId}/holds`, { best_available: { count, ...filters } }, token);
}

/** Checks the answers of one burst against the rows; returns the 409s' counts. */
async function judgeBurst(db: Queryable, showId: string, counts: number[], answers: HttpAnswer[], label: string): Promise<number[]> {
  const places = await seatPlaces(db, showId);
  const byId = new Map(places.map((p) => [p.seat_id, p]));
  const seen = new Set<string>();
  const refused: number[] = [];
  answers.forEach((a, i) => {
    if (a.status === 409) {
      expect(a.body.code, label).toBe('NOT_ENOUGH_SEATS');
      refused.push(counts[i]!);
      return;
    }
    expect(a.status, `${label}: ${a.text}`).toBe(201);
    const seats = a.body.seats as string[];
    expect(seats, label).toHaveLength(counts[i]!);
    expect(adjacent(seats, byId), `${label}: ${seats.join(',')} are not adjacent`).toBe(true);
    for (const s of seats) {
      expect(seen.has(s), `${label}: ${s} given twice`).toBe(false);
      seen.add(s);
      expect(byId.get(s)!.hold_id, `${label}: ${s} is not held by its hold`).toBe(a.body.hold_id);
    }
  });
  // Nothing else was held, and no refusal left a run it could have had.
  expect(places.filter((p) => p.status !== 'available').length, label).toBe(seen.size);
  const longest = longestFreeRun(places);
  for (const c of refused) expect(c, `${label}: ${c} refused while a run of ${longest} is left`).toBeGreaterThan(longest);
  return refused;
}

describe('best available: 500 buyers at once', () => {
  let t: TestService;
  let buyers: Buyer[];
  let db: Queryable;

  beforeAll(async () => {
    t = await startTestService({ sweeper: false });
    db = t.service.ctx.db;
    buyers = await registerBuyers(t, 50);
  }, 120_000);
  afterAll(async () => { await t?.close(); });

  it('500 requests for 2–4 seats on a show with room for them all: disjoint adjacent runs, no 409 (2 trials)', async () => {
    const random = seededRandom(SEED);
    for (let trial = 0; trial < 2; trial++) {
      // 4 sections × 12 rows of 40, 39, 38 seats: 1,872 seats for about 1,500 asked.
      const { showId } = await createLayoutShow(t, stadium(4, 12, 40), { priceTiers: { gold: 9000, silver: 5000 }, per_user_limit: 40 });
      const counts = Array.from({ length: REQUESTS }, () => 2 + Math.floor(random() * 3));
      const started = Date.now();
      const answers = await Promise.all(counts.map((c, i) => bestHold(t, showId, c, buyers[i % buyers.length]!.token)));
      const label = `seed ${SEED}, trial ${trial}: ${tally(answers)} in ${Date.now() - started} ms`;
      const refused = await judgeBurst(db, showId, counts, answers, label);
      expect(refused, label).toEqual([]);
    }
  }, 240_000);

  it('500 requests for 2–4 seats on a show that sells out: every 409 came when no run of its length was left', async () => {
    const random = seededRandom(SEED + 1);
    // 2 sections × 10 rows of 30, 29, 28 seats: 574 seats for about 1,500 asked.
    const { showId } = await createLayoutShow(t, stadium(2, 10, 30), { priceTiers: { gold: 9000, silver: 5000 }, per_user_limit: 40 });
    const counts = Array.from({ length: REQUESTS }, () => 2 + Math.floor(random() * 3));
    const answers = await Promise.all(counts.map((c, i) => bestHold(t, showId, c, buyers[i % buyers.length]!.token)));
    const label = `seed ${SEED + 1}: ${tally(answers)}`;
    const refused = await judgeBurst(db, showId, counts, answers, label);
    expect(refused.length, label).toBeGreaterThan(0);
    // Sold out as far as runs of two go: at most lone seats are left.
    expect(longestFreeRun(await seatPlaces(db, showId)), label).toBeLessThan(2);
  }, 240_000);

  it('a section filter keeps to the section, even with the rest of the show free', async () => {
    const { showId } = await createLayoutShow(t, stadium(3, 4, 10), { priceTiers: { gold: 9000, silver: 5000 }, per_user_limit: 40 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => bestHold(t, showId, 2, buyers[i]!.token, { section: '103' })));
    const places = new Map((await seatPlaces(db, showId)).map((p) => [p.seat_id, p]));
    const won = answers.filter((a) => a.status === 201);
    // Section 103 has rows of 10, 9, 8, 10 seats: 37 seats, at most 18 pairs, never fewer than 16.
    expect(won.length).toBeGreaterThanOrEqual(16);
    for (const a of won) for (const s of a.body.seats as string[]) expect(places.get(s)!.section).toBe('103');
    for (const a of answers.filter((x) => x.status !== 201)) expect(a.body.code).toBe('NOT_ENOUGH_SEATS');
  }, 60_000);
});

describe('per_user_limit across chosen and best-available requests of one buyer', () => {
  let t: TestService;
  let buyer: Buyer;
  let db: Queryable;

  beforeAll(async () => {
    t = await startTestService({ sweeper: false });
    db = t.service.ctx.db;
    [buyer] = (await registerBuyers(t, 1)) as [Buyer];
  });
  afterAll(async () => { await t?.close(); });

  it('20 parallel requests, half chosen (1–2 seats), half best available (1–3): never above the limit, every LIMIT_EXCEEDED would have gone over it (10 trials)', async () => {
    const random = seededRandom(SEED + 2);
    const limit = 7;
    const { showId } = await createLayoutShow(t, stadium(2, 5, 20), { priceTiers: { gold: 9000, silver: 5000 }, per_user_limit: limit });
    const all = (await seatPlaces(db, showId)).map((p) => p.seat_id);
    let refusedForLimit = 0;
    for (let trial = 0; trial < 10; trial++) {
      const pool = shuffled(all, random);
      const requests = Array.from({ length: 20 }, (_, i) => (i % 2 === 0
        ? { kind: 'chosen' as const, seats: pool.splice(0, 1 + Math.floor(random() * 2)), count: 0 }
        : { kind: 'best' as const, seats: [], count: 1 + Math.floor(random() * 3) }));
      for (const r of requests) if (r.kind === 'chosen') r.count = r.seats.length;
      const answers = await Promise.all(requests.map((r) => (r.kind === 'chosen'
        ? postHold(t, showId, r.seats, buyer.token)
        : bestHold(t, showId, r.count, buyer.token))));
      const label = `seed ${SEED + 2}, trial ${trial}: ${tally(answers)}`;
      for (const [i, a] of answers.entries()) {
        const ok = a.status === 201 || (a.status === 409 && a.body.code === 'LIMIT_EXCEEDED')
          // A chosen seat may have gone to one of the buyer's own best-available requests.
          || (a.status === 409 && a.body.code === 'SEAT_UNAVAILABLE' && requests[i]!.kind === 'chosen');
        expect(ok, `${label}: ${a.status} ${a.text}`).toBe(true);
      }
      const won = answers.flatMap((a) => (a.status === 201 ? [a.body.seats as string[]] : []));
      const wonSeats = won.flat();
      expect(wonSeats.length, label).toBeLessThanOrEqual(limit);
      const held = (await seatPlaces(db, showId)).filter((p) => p.status === 'held').map((p) => p.seat_id).sort();
      expect(held, label).toEqual([...wonSeats].sort());
      requests.forEach((r, i) => {
        if (answers[i]!.status === 409 && answers[i]!.body.code === 'LIMIT_EXCEEDED') {
          refusedForLimit++;
          expect(wonSeats.length + r.count, `${label}: ${r.kind} ${r.count} refused`).toBeGreaterThan(limit);
        }
      });
      for (const a of answers) if (a.status === 201) expect((await t.http.delete(`/v1/holds/${a.body.hold_id}`, buyer.token)).status).toBe(204);
    }
    expect(refusedForLimit).toBeGreaterThan(0);
  }, 120_000);

  it('at the limit: best available answers LIMIT_EXCEEDED when seats are left, NOT_ENOUGH_SEATS when none are (the contract\'s order)', async () => {
    const { showId } = await createLayoutShow(t, [{ row: 'A', seats: 6, tier: 'silver' }], { priceTiers: { silver: 5000 }, per_user_limit: 2 });
    expect((await postHold(t, showId, ['A1', 'A2'], buyer.token)).status).toBe(201);
    const over = await bestHold(t, showId, 1, buyer.token);
    expect(over.body).toMatchObject({ code: 'LIMIT_EXCEEDED', per_user_limit: 2, seats_already_yours: 2 });
    const noRoom = await bestHold(t, showId, 2, buyer.token, { tier: 'silver', max_price: 100 });
    expect(noRoom.status).toBe(409);
    expect(noRoom.body.code).toBe('NOT_ENOUGH_SEATS');
    const tooMany = await bestHold(t, showId, 3, buyer.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual([{ path: '/best_available/count', message: 'at most 2 seats per buyer for this show' }]);
    const unknown = await bestHold(t, showId, 1, buyer.token, { section: 'Z' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('VALIDATION_FAILED');
    const both = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A5'], best_available: { count: 1 } }, buyer.token);
    expect(both.status).toBe(400);
  });
});
