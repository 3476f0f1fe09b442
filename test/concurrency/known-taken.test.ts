// Holds refused from what an instance knows is taken (src/app/knownTaken.ts): only
// ever seats the database holds too; a release or an expiry frees them for the next
// hold at once on the instance that knows; another instance's release within the feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnownTaken, LAPSE_MARGIN_MS, knownTooFew } from '../../src/app/knownTaken.js';
import type { HallLayout } from '../../src/app/hallCatalog.js';
import type { Service } from '../../src/service.js';
import { startSecondInstance, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { HttpClient } from '../support/http.js';
import { shiftClock } from '../../src/db/clock.js';

describe('what an instance knows is taken (in memory)', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('keeps a hold until its lapse less the margin, a booking until freed', () => {
    const k = new KnownTaken('always', () => false, clock);
    k.held('s1', ['A1', 'A2'], now + 1000);
    k.booked('s1', ['B1']);
    expect(k.takenOf('s1', ['A1', 'A3', 'B1'])).toEqual(['A1', 'B1']);
    now += 1000 - LAPSE_MARGIN_MS;
    expect(k.takenOf('s1', ['A1', 'A2', 'B1'])).toEqual(['B1']);
    k.freed('s1', ['B1']);
    expect(k.takenOf('s1', ['B1'])).toEqual([]);
    expect(k.takenOf('other', ['A1'])).toEqual([]);
  });

  it('a seat held anew takes the new hold\'s lapse, sooner or later than what was known', () => {
    const k = new KnownTaken('always', () => false, clock);
    k.booked('s1', ['A1']);
    k.held('s1', ['A1'], now + 500);
    now += 500;
    expect(k.takenOf('s1', ['A1'])).toEqual([]);
  });

  it('counts what it remembers, and past 500,000 seats forgets the least recently touched shows', () => {
    const k = new KnownTaken('always', () => true, clock);
    const seats = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    k.held('a', seats(300_000, 'S'), now + 60_000);
    k.booked('b', seats(100_000, 'S'));
    k.freed('b', ['S0', 'S1']);
    expect(k.size).toBe(399_998);
    k.held('a', ['S0'], now + 60_000); // touched: 'b' is now the oldest
    k.held('c', seats(200_000, 'S'), now + 60_000);
    expect(k.takenOf('b', ['S5'])).toEqual([]);
    expect(k.takenOf('a', ['S5'])).toEqual(['S5']);
    expect(k.size).toBe(500_000);
    k.forgetShow('a');
    expect(k.size).toBe(200_000);
  });

  it('answers by its mode: always, only while loaded, never', () => {
    let loaded = false;
    expect(new KnownTaken('always', () => loaded).answering).toBe(true);
    const underLoad = new KnownTaken('under-load', () => loaded);
    expect(underLoad.answering).toBe(false);
    loaded = true;
    expect(underLoad.answering).toBe(true);
    const off = new KnownTaken('off', () => loaded);
    expect(off.answering).toBe(false);
    off.held('s1', ['A1'], Date.now() + 60_000);
    expect(off.takenOf('s1', ['A1'])).toEqual([]);
  });

  it('counts seats taken for best available without claiming a lapsed one, walking the show at most once per interval', () => {
    const k = new KnownTaken('always', () => true, clock);
    const layout = { seats: Array.from({ length: 4 }, (_, i) => ({ seat_id: `A${i + 1}` })) } as unknown as HallLayout;
    k.held('s1', ['A1', 'A2'], now + 1000);
    k.held('s1', ['A3'], now + 5000);
    expect(knownTooFew(k, 's1', layout, 1)).toBe(false); // 4 - 3 ≥ 1: in constant time
    expect(knownTooFew(k, 's1', layout, 2)).toBe(true);
    now += 1000;
    // A1 and A2 have lapsed: pruned, one free seat known taken no more.
    expect(k.takenCount('s1')).toBe(1);
    expect(knownTooFew(k, 's1', layout, 2)).toBe(false);
    k.held('s1', ['A1'], now + LAPSE_MARGIN_MS + 30);
    expect(k.takenOf('s1', ['A1'])).toEqual(['A1']);
    now += 40;
    // Lapsed again within the prune interval: no count at all rather than a wrong one.
    expect(k.takenCount('s1')).toBeNull();
    expect(knownTooFew(k, 's1', layout, 3)).toBe(false);
  });
});

describe('holds refused from memory, one instance (KNOWN_TAKEN_REFUSALS=always)', () => {
  let t: TestService;
  let buyers: Buyer[];
  const refusedFromMemory = async () => (await t.service.ctx.metrics.holdsRefusedFromMemory.get()).values[0]?.value ?? 0;

  beforeAll(async () => {
    t = await startTestService({ config: { knownTaken: 'always' } });
    buyers = await registerBuyers(t, 2);
  });
  afterAll(async () => { await t?.close(); });

  it('refuses a seat known held with SEAT_UNAVAILABLE, and holds it once released', async () => {
    const [a, b] = buyers as [Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 10 });
    const first = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2'] }, a.token);
    expect(first.status).toBe(201);
    const before = await refusedFromMemory();
    const lost = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2', 'A3'] }, b.token);
    expect(lost.status).toBe(409);
    expect(lost.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A2'] });
    expect(await refusedFromMemory()).toBe(before + 1);
    expect((await t.http.delete(`/v1/holds/${first.body.hold_id}`, a.token)).status).toBe(204);
    const won = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2', 'A3'] }, b.token);
    expect(won.status, won.text).toBe(201);
    expect(await refusedFromMemory()).toBe(before + 1);
  });

  it('answers what the claim checks before the seats first: a seat known taken after the sale closed is SALE_CLOSED', async () => {
    const [a, b] = buyers as [Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 10, starts_at: new Date(Date.now() + 120_000).toISOString() });
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, a.token)).status).toBe(201);
    // The show starts (its hold of 600 s still runs): the instance reads the moved clock as it would within a second.
    await shiftClock(t.service.ctx.db, 180);
    t.service.ctx.showRules.forget(showId);
    await t.service.ctx.showRules.get(showId);
    const before = await refusedFromMemory();
    const late = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, b.token);
    expect(late.status).toBe(403);
    expect(late.body.code).toBe('SALE_CLOSED');
    expect(await refusedFromMemory()).toBe(before);
    await shiftClock(t.service.ctx.db, -180);
  });

  it('refuses best available when fewer seats than asked are not known taken, and holds them once lapsed', async () => {
    const [a, b] = buyers as [Buyer, Buyer];
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4, hold_ttl_seconds: 1 });
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2', 'A3'] }, a.token)).status).toBe(201);
    const before = await refusedFromMemory();
    const two = await t.http.post(`/v1/shows/${showId}/holds`, { best_available: { count: 2 } }, b.token);
    expect(two.status).toBe(409);
    expect(two.body.code).toBe('NOT_ENOUGH_SEATS');
    expect(await refusedFromMemory()).toBe(before + 1);
    // One seat is left: the database chooses it.
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { best_available: { count: 1 } }, b.token)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1100));
    const after = await t.http.post(`/v1/shows/${showId}/holds`, { best_available: { count: 3 } }, b.token);
    expect(after.status, after.text).toBe(201);
  });

  it('never refuses what the database would hold: 300 racing holds on 20 seats, every seat held once, every refusal a seat then held', async () => {
    const { showId, seats } = await createShow(t, { rows: 1, seatsPerRow: 20, per_user_limit: 1000 });
    const many = await registerBuyers(t, 300);
    const asks = many.map((buyer, i) => ({ buyer, seats: [seats[i % 20]!, seats[(i * 7 + 3) % 20]!].filter((s, j, all) => all.indexOf(s) === j) }));
    const answers = await Promise.all(asks.map((a) => t.http.post(`/v1/shows/${showId}/holds`, { seats: a.seats }, a.buyer.token)));
    const held = answers.filter((r) => r.status === 201).flatMap((r) => r.body.seats as string[]);
    expect(new Set(held).size).toBe(held.length);
    for (const r of answers.filter((x) => x.status === 409)) {
      expect(r.body.code).toBe('SEAT_UNAVAILABLE');
      for (const s of r.body.taken as string[]) expect(held).toContain(s);
    }
    expect(answers.every((r) => r.status === 201 || r.status === 409)).toBe(true);
  });
});

describe('holds refused from memory, two instances on one database', () => {
  let a: TestService;
  let second: Service;
  let b: HttpClient;
  let buyer: Buyer;

  beforeAll(async () => {
    a = await startTestService({ config: { knownTaken: 'always' } });
    // The same database; the default mode.
    ({ service: second, http: b } = await startSecondInstance(a, { knownTaken: 'under-load' }));
    [buyer] = (await registerBuyers(a, 1)) as [Buyer];
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await a?.close();
  });

  it('a release on the other instance frees the seat here once the feed has carried it', async () => {
    const { showId } = await createShow(a, { rows: 1, seatsPerRow: 10 });
    const held = await a.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, buyer.token);
    expect(held.status).toBe(201);
    expect((await b.delete(`/v1/holds/${held.body.hold_id}`, buyer.token)).status).toBe(204);
    // Until the feed carries the release, the instance that made the hold may still refuse
    // it: the window that the default mode confines to moments when holds queue for the pool.
    await a.service.ctx.seatFeed.catchUp();
    const again = await a.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, buyer.token);
    expect(again.status, again.text).toBe(201);
  });

  it('in the default mode, idle, the database decides: a release elsewhere is seen at once', async () => {
    const { showId } = await createShow(a, { rows: 1, seatsPerRow: 10 });
    for (let i = 0; i < 5; i++) {
      const held = await b.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, buyer.token);
      expect(held.status, held.text).toBe(201);
      expect((await a.http.delete(`/v1/holds/${held.body.hold_id}`, buyer.token)).status).toBe(204);
    }
    expect((await second.ctx.metrics.holdsRefusedFromMemory.get()).values[0]?.value ?? 0).toBe(0);
  });
});
