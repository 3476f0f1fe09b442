// per_user_limit holds when one buyer fires many holds at once, and the contract's
// order of refusals (400 → 409 SEAT_UNAVAILABLE → 409 LIMIT_EXCEEDED) is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/client.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { postHold, seatRows, seededRandom, shuffled, tally } from '../support/seatRows.js';

/** Seats of the show that this user holds right now, by the DB clock. */
async function heldBy(db: Queryable, showId: string, userId: string): Promise<string[]> {
  const r = await db.query<{ seat_id: string }>(
    `select seat_id from show_seats
      where show_id = $1 and holder_id = $2 and status = 'held' and hold_expires_at > bo_now()
      order by seat_id`,
    [showId, userId],
  );
  return r.rows.map((x) => x.seat_id);
}

const SEED = Number(process.env.LIMIT_SEED ?? Date.now() % 1_000_000);

describe('per_user_limit under parallel requests of one buyer', () => {
  let t: TestService;
  let buyer: Buyer;
  let db: Queryable;

  beforeAll(async () => {
    t = await startTestService();
    db = t.service.ctx.db;
    [buyer] = (await registerBuyers(t, 1)) as [Buyer];
  });
  afterAll(async () => { await t?.close(); });

  it('20 parallel single-seat holds: exactly per_user_limit win, the rest LIMIT_EXCEEDED (24 trials, limits 4, 10, 7)', async () => {
    const random = seededRandom(SEED);
    const shows = new Map<number, { showId: string; seats: string[] }>();
    for (const limit of [4, 10, 7]) shows.set(limit, await createShow(t, { rows: 5, seatsPerRow: 20, per_user_limit: limit }));
    for (let trial = 0; trial < 24; trial++) {
      const limit = [4, 10, 7][trial % 3]!;
      const show = shows.get(limit)!;
      const seats = shuffled(show.seats, random).slice(0, 20);
      const answers = await Promise.all(seats.map((s) => postHold(t, show.showId, [s], buyer.token)));
      const label = `seed ${SEED}, trial ${trial}, limit ${limit}: ${tally(answers)}`;

      const won = answers.flatMap((a, i) => (a.status === 201 ? [{ seat: seats[i]!, holdId: a.body.hold_id as string }] : []));
      expect(won, label).toHaveLength(limit);
      expect(answers.filter((a) => a.status === 409 && a.body.code === 'LIMIT_EXCEEDED'), label).toHaveLength(20 - limit);
      expect(await heldBy(db, show.showId, buyer.userId), label).toEqual(won.map((w) => w.seat).sort());
      const holdRows = await db.query<{ n: number }>(
        `select count(*) as n from holds where show_id = $1 and user_id = $2 and status = 'active' and expires_at > bo_now()`,
        [show.showId, buyer.userId],
      );
      expect(holdRows.rows[0]!.n, label).toBe(limit);

      // Release everything: the next trial starts from zero, and a release really frees the quota.
      for (const w of won) expect((await t.http.delete(`/v1/holds/${w.holdId}`, buyer.token)).status).toBe(204);
      expect(await heldBy(db, show.showId, buyer.userId), label).toEqual([]);
    }
  });

  it('parallel holds of 1–3 seats: never above the limit, and every refusal really would have gone over it', async () => {
    const random = seededRandom(SEED + 1);
    const limit = 7;
    const show = await createShow(t, { rows: 5, seatsPerRow: 20, per_user_limit: limit });
    for (let trial = 0; trial < 10; trial++) {
      const pool = shuffled(show.seats, random);
      const requests = Array.from({ length: 20 }, () => pool.splice(0, 1 + Math.floor(random() * 3)));
      const answers = await Promise.all(requests.map((seats) => postHold(t, show.showId, seats, buyer.token)));
      const label = `seed ${SEED + 1}, trial ${trial}: ${tally(answers)}`;
      expect(answers.every((a) => a.status === 201 || (a.status === 409 && a.body.code === 'LIMIT_EXCEEDED')), label).toBe(true);

      const wonSeats = requests.filter((_, i) => answers[i]!.status === 201).flat();
      expect(wonSeats.length, label).toBeLessThanOrEqual(limit);
      expect(await heldBy(db, show.showId, buyer.userId), label).toEqual([...wonSeats].sort());
      // Holds only accumulate during a trial, so a request refused for the limit still exceeds it at the end.
      requests.forEach((seats, i) => {
        if (answers[i]!.status === 409) expect(wonSeats.length + seats.length, `${label}: ${JSON.stringify(seats)} was refused`).toBeGreaterThan(limit);
      });
      for (const a of answers) if (a.status === 201) await t.http.delete(`/v1/holds/${a.body.hold_id}`, buyer.token);
    }
  });

  it('counts per show: a buyer at the limit of one show can still hold seats of another', async () => {
    const first = await createShow(t, { rows: 1, seatsPerRow: 10, per_user_limit: 2 });
    const second = await createShow(t, { rows: 1, seatsPerRow: 10, per_user_limit: 2 });
    expect((await postHold(t, first.showId, ['A1', 'A2'], buyer.token)).status).toBe(201);
    const over = await postHold(t, first.showId, ['A3'], buyer.token);
    expect(over.body).toMatchObject({ code: 'LIMIT_EXCEEDED', per_user_limit: 2, seats_already_yours: 2 });
    expect((await postHold(t, second.showId, ['A1', 'A2'], buyer.token)).status).toBe(201);
  });
});

describe('the order of refusals around the limit', () => {
  let t: TestService;
  let buyer: Buyer;
  let other: Buyer;
  let db: Queryable;

  beforeAll(async () => {
    t = await startTestService();
    db = t.service.ctx.db;
    [buyer, other] = (await registerBuyers(t, 2)) as [Buyer, Buyer];
  });
  afterAll(async () => { await t?.close(); });

  it('a request for a taken seat that would also exceed the limit answers SEAT_UNAVAILABLE and takes nothing', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 10, per_user_limit: 2 });
    expect((await postHold(t, showId, ['A5'], other.token)).status).toBe(201);
    expect((await postHold(t, showId, ['A1', 'A2'], buyer.token)).status).toBe(201);
    const before = await seatRows(db, showId);

    const someoneElses = await postHold(t, showId, ['A5'], buyer.token);
    expect(someoneElses.status).toBe(409);
    expect(someoneElses.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A5'] });
    const mixed = await postHold(t, showId, ['A3', 'A5'], buyer.token);
    expect(mixed.status).toBe(409);
    expect(mixed.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A5'] });
    const ownSeat = await postHold(t, showId, ['A1'], buyer.token);
    expect(ownSeat.status).toBe(409);
    expect(ownSeat.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A1'] });
    // Only a request whose seats are all free is judged against the limit.
    const free = await postHold(t, showId, ['A3'], buyer.token);
    expect(free.status).toBe(409);
    expect(free.body.code).toBe('LIMIT_EXCEEDED');
    expect(await seatRows(db, showId)).toEqual(before);
  });

  it('a single request for more seats than per_user_limit is 400 VALIDATION_FAILED, before any 409', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 10, per_user_limit: 4 });
    const before = await seatRows(db, showId);
    const tooMany = await postHold(t, showId, ['A1', 'A2', 'A3', 'A4', 'A5'], buyer.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('VALIDATION_FAILED');
    expect(await seatRows(db, showId)).toEqual(before);

    expect((await postHold(t, showId, ['A6'], other.token)).status).toBe(201);
    const tooManyAndTaken = await postHold(t, showId, ['A2', 'A3', 'A4', 'A5', 'A6'], buyer.token);
    expect(tooManyAndTaken.status).toBe(400);
    expect(tooManyAndTaken.body.code).toBe('VALIDATION_FAILED');

    const exactly = await postHold(t, showId, ['A1', 'A2', 'A3', 'A4'], buyer.token);
    expect(exactly.status).toBe(201);
    const tooManyAtLimit = await postHold(t, showId, ['A5', 'A7', 'A8', 'A9', 'A10'], buyer.token);
    expect(tooManyAtLimit.status).toBe(400);
    expect(tooManyAtLimit.body.code).toBe('VALIDATION_FAILED');
  });

  it('a refusal says what to do: SALE_NOT_OPEN names the opening, a request over the limit names the limit', async () => {
    const opensAt = new Date(Date.now() + 86_400_000).toISOString();
    const later = await createShow(t, { rows: 1, seatsPerRow: 10, per_user_limit: 2, sale_opens_at: opensAt });
    const early = await postHold(t, later.showId, ['A1'], buyer.token);
    expect(early.status).toBe(403);
    expect(early.body).toMatchObject({ code: 'SALE_NOT_OPEN', sale_opens_at: opensAt });
    expect(early.body.detail).toContain(opensAt);
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 10, per_user_limit: 2 });
    const tooMany = await postHold(t, showId, ['A1', 'A2', 'A3'], buyer.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual([{ path: '/seats', message: 'at most 2 seats per buyer for this show' }]);
  });
});
