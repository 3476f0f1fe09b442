// The queue store on its own, on the real Redis (a key prefix of its own, deleted
// afterwards) and in process: the cases of ./storeCases.ts, and the rate shared by
// several instances.
import { afterAll, describe, expect, it } from 'vitest';
import { RedisQueueStore } from '../../src/waiting-room/redisStore.js';
import { MemoryQueueStore } from '../../src/waiting-room/memoryStore.js';
import type { QueueStore } from '../../src/waiting-room/store.js';
import { REDIS_URL, redisPrefix } from '../support/clients.js';
import { OPEN, entry, show, storeCases } from './storeCases.js';

const prefixes: ReturnType<typeof redisPrefix>[] = [];
const stores: QueueStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const p of prefixes) await p.cleanUp();
});

function redisStore(clock?: () => number): QueueStore {
  const p = redisPrefix();
  prefixes.push(p);
  const s = new RedisQueueStore(REDIS_URL, p.prefix, clock ?? null);
  stores.push(s);
  return s;
}

describe.each([['redis', redisStore], ['memory', (clock?: () => number) => new MemoryQueueStore(clock)]] as const)('queue store (%s)', (kind, makeStore) => {
  storeCases(kind, makeStore);
});

describe('queue store (redis), several instances', () => {
  it('admits at the lowest rate among the instances ticking a room, until one stops ticking', async () => {
    let now = 1_000;
    const store = redisStore(() => now);
    await store.ready();
    const id = show();
    for (let i = 0; i < 1000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => store.join(id, `usr_${i + k}`, entry(), OPEN)));
    const advance = (instanceId: string, ratePerMinute: number) => store.advance(id, { instanceId, ratePerMinute, graceMs: 3_600_000, rateTtlMs: 20_000 });
    await advance('a', 600);
    await advance('b', 60);
    now += 10_000;
    await advance('a', 600);
    expect(await store.state(id)).toMatchObject({ serving: 10, rate: 60 }); // b's 60 a minute governs
    now += 30_000; // b has not ticked for 40 s: its rate no longer counts
    await advance('a', 600);
    expect(await store.state(id)).toMatchObject({ serving: 310, rate: 600 });
  });
});
