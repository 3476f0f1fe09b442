// The queue store's behaviour, written against the QueueStore interface (not a
// test file): test/waiting-room/store.test.ts runs it on the shared Redis and in
// process, test/waiting-room/redis-cluster.test.ts on a three-master Redis Cluster.
// Unique positions under 10,000 concurrent joins, one place per account, the fair
// opening's shuffle, and the admission arithmetic.
import { expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { QueueStore } from '../../src/waiting-room/store.js';
import { openingOrder } from '../../src/waiting-room/fairOpening.js';
import { RoomTicker } from '../../src/waiting-room/ticker.js';
import type { ShowRules } from '../../src/app/showRules.js';

export const OPEN = { opensAtMs: 0, nowMs: 1_000, seed: 'unused' };
export const show = () => `show_${randomBytes(6).toString('hex')}`;
export const entry = () => `qe_${randomBytes(12).toString('hex')}`;

/** Spearman's rank correlation of two permutations of 0..n-1 given as ranks. */
function spearman(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (a[i]! - b[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

/** A ticker over fixed rules: the show has a waiting room and its sale opened at opensAtMs. */
export function tickerFor(store: QueueStore, showId: string, opts: { opensAtMs: number; nowMs: () => number; rate: number; graceMs?: number; startsAtMs?: number; soldOut?: () => boolean }) {
  const rules = {
    getOrStale: async (id: string) => (id === showId ? { waitingRoom: true, saleOpensAtMs: opts.opensAtMs, startsAtMs: opts.startsAtMs ?? Infinity, perUserLimit: 10, holdTtlSeconds: 600 } : null),
    dbNow: opts.nowMs,
  } as unknown as ShowRules;
  return new RoomTicker(store, rules, { admitPerMinute: opts.rate, graceSeconds: (opts.graceMs ?? 60_000) / 1000, tickMs: 1000, failOpen: false, prefix: '', showRulesRefreshMs: 1000, controlMs: 0, minAdmitPerMinute: 0 },
    () => opts.rate, async () => opts.soldOut?.() ?? false);
}

/** Registers the store's cases in the current describe block; `makeStore` makes a store (with a fake clock when given). */
export function storeCases(_kind: string, makeStore: (clock?: () => number) => QueueStore): void {
  const make = async (clock?: () => number) => {
    const store = makeStore(clock);
    await store.ready();
    return store;
  };
  it('gives 10,000 concurrent joins 10,000 unique positions, 1..10,000', async () => {
    const store = await make();
    const id = show();
    const started = Date.now();
    const entries = await Promise.all(Array.from({ length: 10_000 }, (_, i) => store.join(id, `usr_${i}`, entry(), OPEN)));
    console.log(`${_kind}: 10,000 concurrent joins in ${Date.now() - started} ms`);
    const positions = entries.map((e) => e.position!);
    expect(new Set(positions).size).toBe(10_000);
    expect(Math.min(...positions)).toBe(1);
    expect(Math.max(...positions)).toBe(10_000);
    expect((await store.state(id)).tail).toBe(10_000);
  }, 60_000);

  it('keeps one place per account, also when the account joins from three clients at once', async () => {
    const store = await make();
    const id = show();
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.join(id, `usr_other_${i}`, entry(), OPEN)));
    const three = await Promise.all([1, 2, 3].map(() => store.join(id, 'usr_same', entry(), OPEN)));
    expect(new Set(three.map((e) => e.position)).size).toBe(1);
    expect(new Set(three.map((e) => e.entryId)).size).toBe(1);
    expect(await store.join(id, 'usr_same', entry(), OPEN)).toEqual(three[0]);
    expect((await store.state(id)).tail).toBe(51);
  });

  it('shuffles a pre-queue of 10,000 at the opening (|rho| < 0.05), in the order its published seed gives', async () => {
    const store = await make();
    const id = show();
    const before = { opensAtMs: 10_000, nowMs: 5_000, seed: 'not-yet' };
    const users = Array.from({ length: 10_000 }, (_, i) => `usr_${String(i).padStart(5, '0')}`);
    // Joined in order (user i is the i-th to join): before the opening nobody has a position.
    for (let i = 0; i < users.length; i += 500) {
      const batch = await Promise.all(users.slice(i, i + 500).map((u) => store.join(id, u, entry(), before)));
      expect(batch.every((e) => e.position === null)).toBe(true);
    }
    expect(await store.state(id)).toMatchObject({ opened: false, preQueue: 10_000, seed: null });
    // A join after the opening queues behind the whole pre-queue, even before its order is written.
    const late = await store.join(id, 'usr_late', entry(), { opensAtMs: 10_000, nowMs: 10_001, seed: 'the-seed-0123456789abcdef' });
    expect(late.position).toBe(10_001);
    const state = await store.state(id);
    expect(state).toMatchObject({ opened: true, ranked: false, seed: 'the-seed-0123456789abcdef', preQueue: 10_000 });

    await tickerFor(store, id, { opensAtMs: 10_000, nowMs: () => 10_002, rate: 0 }).tick();
    expect((await store.state(id)).ranked).toBe(true);
    const positions = await Promise.all(users.map(async (u) => (await store.entry(id, u))!.position!));
    expect(new Set(positions).size).toBe(10_000);
    const rho = spearman(users.map((_, i) => i), positions.map((p) => p - 1));
    console.log(`${_kind}: pre-queue of 10,000, Spearman rho with join order = ${rho.toFixed(4)}`);
    expect(Math.abs(rho)).toBeLessThan(0.05);

    // Anyone with the seed and the entry ids recomputes every position.
    const entryOf = new Map(await Promise.all(users.map(async (u) => [(await store.entry(id, u))!.entryId, u] as const)));
    const order = openingOrder(state.seed!, entryOf.keys());
    order.forEach((entryId, i) => expect(positions[users.indexOf(entryOf.get(entryId)!)]).toBe(i + 1));
  }, 120_000);

  it('moves serving by the rate, never past the end of the queue, and gives the slots of no-shows to the next', async () => {
    let now = 1_000;
    const store = await make(() => now);
    const id = show();
    for (let i = 0; i < 100; i++) await store.join(id, `usr_${i}`, entry(), OPEN);
    const ticker = tickerFor(store, id, { opensAtMs: 0, nowMs: () => now, rate: 60, graceMs: 10_000 });
    await ticker.tick(); // the pre-queue was empty: open and ranked, serving starts
    // The first advance admits one tick's worth (1 s at 60 a minute), not nothing.
    expect((await store.state(id)).serving).toBe(1);
    now += 5_000;
    await ticker.tick();
    expect((await store.state(id)).serving).toBe(6); // 60 a minute = 1 a second
    // Position 1 was called at t=1s, 2..6 at t=6s; 1, 2 and 4 come to the purchase path.
    for (const p of [1, 2, 4]) await store.present(id, p);
    now += 4_000;
    await ticker.tick();
    expect((await store.state(id)).serving).toBe(10);
    now += 7_000; // past 6s + 10s grace: 3, 5 and 6 lapsed
    await ticker.tick();
    const s = await store.state(id);
    expect(s.noShows).toBe(3);
    expect(s.serving).toBe(10 + 7 + 3);

    await store.control(id, { paused: true });
    now += 60_000;
    await ticker.tick();
    expect((await store.state(id)).serving).toBe(20);
    await store.control(id, { paused: false, cap: 6 });
    now += 10_000;
    await ticker.tick();
    const capped = await store.state(id);
    expect(capped.serving).toBeGreaterThanOrEqual(21); // 6 a minute for 10 s, plus whatever lapsed meanwhile
    expect(capped.cap).toBe(6);
    await store.control(id, { cap: null });
    now += 3_600_000;
    await ticker.tick();
    expect((await store.state(id)).serving).toBe(100); // never past the tail
    await store.join(id, 'usr_new', entry(), OPEN);
    now += 100;
    await ticker.tick();
    // An empty queue banks nothing: the newcomer waits for the rate, not for an hour's credit.
    expect((await store.state(id)).serving).toBe(100);
    await store.setSoldOut(id, true);
    now += 60_000;
    await ticker.tick();
    expect((await store.state(id))).toMatchObject({ serving: 100, soldOut: true });
  });

  it('lapses a served place not admitted within its grace period; an admission asked for again is the same one', async () => {
    let now = 1_000;
    const store = await make(() => now);
    const id = show();
    const entries = [];
    for (let i = 0; i < 5; i++) entries.push(await store.join(id, `usr_${i}`, entry(), OPEN));
    const ticker = tickerFor(store, id, { opensAtMs: 0, nowMs: () => now, rate: 60, graceMs: 10_000 });
    await ticker.tick(); // position 1 called at t=1s (its grace ends at 11s)
    now += 2_000;
    await ticker.tick(); // 2 and 3 called at t=3s (13s)
    const exp = Math.floor(Date.now() / 1000) + 600;
    expect(await store.admit(id, 'usr_1', exp)).toEqual({ expiresAtS: exp });
    expect(await store.admit(id, 'usr_1', exp + 60)).toEqual({ expiresAtS: exp }); // never a later expiry
    now = 12_000;
    await ticker.tick();
    expect((await store.state(id)).lapsedThrough).toBe(1);
    expect(await store.admit(id, 'usr_0', exp)).toBe('lapsed');
    expect(await store.admit(id, 'usr_2', exp)).toEqual({ expiresAtS: exp }); // 3's grace runs until 13s
    now = 14_000;
    await ticker.tick();
    expect((await store.state(id)).lapsedThrough).toBe(3);
    expect(await store.admit(id, 'usr_1', exp + 120)).toEqual({ expiresAtS: exp });
    // Joining again: the lapsed place queues at the back as a new entry; the admitted keep theirs.
    const tail = (await store.state(id)).tail;
    const back = await store.join(id, 'usr_0', entry(), OPEN);
    expect(back.position).toBe(tail + 1);
    expect(back.entryId).not.toBe(entries[0]!.entryId);
    expect(await store.join(id, 'usr_0', entry(), OPEN)).toEqual(back);
    expect(await store.join(id, 'usr_1', entry(), OPEN)).toEqual(entries[1]);
    expect(await store.admit(id, 'usr_0', exp)).toEqual({ expiresAtS: exp }); // its new place has not lapsed
    expect((await store.state(id)).admitted).toBe(3);
  });

  // While the room admits at rate 0 a served buyer is told NOT_YET_ADMITTED (paused,
  // sold out) or gets nothing new to do, so its grace period must not run out meanwhile.
  it.each([
    ['paused', { paused: true }, { paused: false }],
    ['capped at 0', { cap: 0 }, { cap: null }],
    ['sold out', 'soldOut', 'onSale'],
  ] as const)('stops the grace period of served places while the room is %s, and runs the rest of it after', async (_why, hold, release) => {
    let now = 1_000;
    const store = await make(() => now);
    const id = show();
    for (let i = 0; i < 3; i++) await store.join(id, `usr_${i}`, entry(), OPEN);
    let soldOut = false;
    // The ticker's sell-out probe agrees with the sell-out set here.
    const ticker = tickerFor(store, id, { opensAtMs: 0, nowMs: () => now, rate: 60, graceMs: 10_000, soldOut: () => soldOut });
    const set = (c: typeof hold | typeof release) => {
      if (typeof c !== 'string') return store.control(id, c);
      soldOut = c === 'soldOut';
      return store.setSoldOut(id, soldOut);
    };
    await ticker.tick(); // position 1 called at t=1s: 10 s of grace
    now = 3_000;
    await ticker.tick(); // 2 and 3 called at t=3s, 2 s later than 1
    expect((await store.state(id)).serving).toBe(3);
    await set(hold);
    for (now = 5_000; now <= 65_000; now += 10_000) await ticker.tick(); // a minute held, six times the grace
    await set(release);
    now = 66_000;
    await ticker.tick();
    expect(await store.state(id)).toMatchObject({ lapsedThrough: 0, noShows: 0 });
    const exp = Math.floor(Date.now() / 1000) + 600;
    expect(await store.admit(id, 'usr_0', exp)).toEqual({ expiresAtS: exp });
    expect(await store.admit(id, 'usr_1', exp)).toEqual({ expiresAtS: exp });
    await store.present(id, 1);
    await store.present(id, 2);
    // The held time does not count, the rest of the grace does: 1's 10 s ran out at 11 s of running time (t=73s), 3's at 75s.
    now = 72_500;
    await ticker.tick();
    expect(await store.state(id)).toMatchObject({ lapsedThrough: 0, noShows: 0 });
    now = 73_500;
    await ticker.tick();
    expect(await store.state(id)).toMatchObject({ lapsedThrough: 1, noShows: 0 });
    now = 75_500;
    await ticker.tick();
    expect(await store.state(id)).toMatchObject({ lapsedThrough: 3, noShows: 1 }); // 3 never came
    expect(await store.admit(id, 'usr_2', exp)).toBe('lapsed');
  });

  it('deletes a room a day after its show started', async () => {
    const store = await make();
    const id = show();
    await store.join(id, 'usr_1', entry(), OPEN);
    expect(await store.rooms()).toContain(id);
    await tickerFor(store, id, { opensAtMs: 0, nowMs: () => 3 * 86_400_000, rate: 60, startsAtMs: 86_400_000 }).tick();
    expect(await store.rooms()).not.toContain(id);
    expect(await store.entry(id, 'usr_1')).toBeNull();
    expect((await store.state(id)).tail).toBe(0);
  });
}
