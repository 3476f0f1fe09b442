// The queue store in Redis, shared by every instance: each operation is one Lua
// script (atomic in Redis). Keys are `<prefix>:{<show>}:<part>`: the braces make
// the show id the hash tag, so on a Redis Cluster every key of one show sits on
// one slot, and every script touches the keys of one show only (one slot, one
// master). The prefix separates deployments.
//
// The list of rooms the tickers walk is the one cross-show structure: it is kept
// apart from the scripts (a separate, idempotent SADD after a join), in
// REGISTRY_BUCKETS copies on slots spread over the whole slot space, so with
// one master down the copies on the others still list every room. On a single
// Redis it is one set, `<prefix>:rooms`.
import { Cluster, Redis, type Result } from 'ioredis';
import type { AdvanceInput, Entry, QueueStore, RoomState } from './store.js';
import type { ShowRule } from '../domain/shows.js';
import type { RedisNode } from '../config.js';
import { StoreUnavailable } from './store.js';
import { SLOTS, tagForSlot } from './clusterSlots.js';

// A dead connection fails at once (no offline queue); this bounds a Redis that
// answers slowly. It must cover a burst: 10,000 joins arriving together queue on
// one connection, and under CPU load the last of them waits hundreds of ms.
const COMMAND_TIMEOUT_MS = 2000;
// On a cluster, a command whose master is down is retried REDIRECTIONS times,
// RETRY_DELAY_MS apart (a failover may be promoting a replica), then fails:
// its show's room answers "try again" within a second (0.2-0.7 s measured).
const REDIRECTIONS = 4;
const RETRY_DELAY_MS = 100;
// Copies of the rooms' registry on a cluster: one slot in each 1/16 of the slot
// space, so any master owning a contiguous 1,024 slots or more holds a copy.
const REGISTRY_BUCKETS = 16;
// A show is registered again (by this instance, on a join) this often, sooner
// when a copy could not be written: a registry copy that lost its data (a master
// restarted empty) is filled again while the room is in use.
const REGISTER_EVERY_MS = 10_000;
const REGISTER_RETRY_MS = 1000;
// A registry copy that did not answer is not asked again for this long: its
// master is likely down, and asking it would slow every ticker's pass.
const BUCKET_BACKOFF_MS = 2000;

// Closes the pre-queue once the sale has opened (ARGV: opensAtMs, nowMs, seed).
// Its size is the tail: later joins queue behind it while its order is written.
const OPEN = `
local function open_if_due(meta, pre, opens_at, now, seed)
  if redis.call('HGET', meta, 'opened') == '1' then return true end
  if tonumber(now) < tonumber(opens_at) then return false end
  local n = redis.call('HLEN', pre)
  redis.call('HSET', meta, 'opened', '1', 'tail', n, 'pre_n', n, 'seed', seed, 'opened_ms', now,
             'ranked', n == 0 and '1' or '0')
  return true
end
`;

// Whether an account's place lapsed: served and past its grace period (up to
// meta.lapsed_to) with no admission running (KEYS: meta, positions, the account's admission).
const LAPSED = `
local function lapsed(meta, positions, admission, user)
  local pos = redis.call('HGET', positions, user)
  if not pos then return false end
  return tonumber(pos) <= tonumber(redis.call('HGET', meta, 'lapsed_to') or '0') and redis.call('EXISTS', admission) == 0
end
`;

// KEYS (one show's): meta, entries (user -> entry), positions (user -> position), pre (entry -> user), the account's admission
// ARGV: user, entry, opensAtMs, nowMs, seed
const JOIN = `${OPEN}${LAPSED}
local had = redis.call('HGET', KEYS[2], ARGV[1])
if had and not lapsed(KEYS[1], KEYS[3], KEYS[5], ARGV[1]) then return {had, redis.call('HGET', KEYS[3], ARGV[1]) or ''} end
local opened = open_if_due(KEYS[1], KEYS[4], ARGV[3], ARGV[4], ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if not opened then
  redis.call('HSET', KEYS[4], ARGV[2], ARGV[1])
  return {ARGV[2], ''}
end
local p = redis.call('HINCRBY', KEYS[1], 'tail', 1)
redis.call('HSET', KEYS[3], ARGV[1], p)
return {ARGV[2], tostring(p)}
`;

// The account's admission: the running one, '' when its place lapsed, else a new
// one (kept until it expires) counted once per account.
// KEYS: meta, positions, the account's admission, admitted (set); ARGV: user, expiresAtS
const ADMIT = `${LAPSED}
local running = redis.call('GET', KEYS[3])
if running then return running end
if lapsed(KEYS[1], KEYS[2], KEYS[3], ARGV[1]) then return '' end
redis.call('SET', KEYS[3], ARGV[2], 'PXAT', tonumber(ARGV[2]) * 1000)
if redis.call('SADD', KEYS[4], ARGV[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'admitted', 1) end
return ARGV[2]
`;

// KEYS: meta, pre; ARGV: opensAtMs, nowMs, seed
const OPEN_SCRIPT = `${OPEN}
return open_if_due(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]) and 1 or 0
`;

// The steps of advance.ts in Lua. KEYS: meta, calls (list of "from:to:deadline", the deadline on the
// running clock: time less meta.held_ms, the time spent at rate 0), present (zset of positions),
// rates (instance -> "rate:ms"). ARGV: ratePerMinute, graceMs, a fake time for tests ('' in production:
// Redis TIME), instance id, rate TTL, the first advance's step (ms). The room admits at the lowest fresh rate among the instances ticking
// it: each measures the one shared database, and the most distressed one is the one to believe.
const ADVANCE = `
local m = redis.call('HMGET', KEYS[1], 'opened', 'ranked', 'tail', 'serving', 'credit', 'last_ms', 'paused', 'cap', 'sold_out', 'held_ms')
if m[1] ~= '1' or m[2] ~= '1' then return 0 end
local now
if ARGV[3] ~= '' then now = tonumber(ARGV[3]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local base = tonumber(ARGV[1])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[1] .. ':' .. now)
local all = redis.call('HGETALL', KEYS[4])
for i = 1, #all, 2 do
  local r, at = string.match(all[i + 1], '([%d%.]+):(%d+)')
  if now - tonumber(at) > tonumber(ARGV[5]) then redis.call('HDEL', KEYS[4], all[i])
  else base = math.min(base, tonumber(r)) end
end
redis.call('HSET', KEYS[1], 'rate', base)
local last = tonumber(m[6])
if not last then
  last = now - tonumber(ARGV[6])
  if now <= last then redis.call('HSET', KEYS[1], 'last_ms', now); return 0 end
end
if now <= last then return 0 end
local tail = tonumber(m[3]) or 0
local serving = tonumber(m[4]) or 0
local credit = tonumber(m[5]) or 0
local rate = base
if m[8] and m[8] ~= '' then rate = math.min(rate, tonumber(m[8])) end
if m[7] == '1' or m[9] == '1' then rate = 0 end
local held = tonumber(m[10]) or 0
local noshow = 0
local lapsed_to = nil
if rate > 0 then
  credit = credit + rate * (now - last) / 60000
  while true do
    local c = redis.call('LINDEX', KEYS[2], 0)
    if not c then break end
    local from, to, deadline = string.match(c, '(%d+):(%d+):(%d+)')
    from = tonumber(from); to = tonumber(to)
    if tonumber(deadline) > now - held then break end
    redis.call('LPOP', KEYS[2])
    lapsed_to = to
    noshow = noshow + (to - from + 1) - redis.call('ZCOUNT', KEYS[3], from, to)
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', to)
  end
else
  held = held + (now - last)
end
local add = math.floor(credit)
credit = credit - add
local target = serving + add + noshow
if target >= tail then target = tail; credit = 0 end
if target > serving then
  redis.call('RPUSH', KEYS[2], (serving + 1) .. ':' .. target .. ':' .. (now - held + tonumber(ARGV[2])))
end
redis.call('HSET', KEYS[1], 'serving', target, 'credit', tostring(credit), 'last_ms', now, 'held_ms', held)
if noshow > 0 then redis.call('HINCRBY', KEYS[1], 'no_shows', noshow) end
if lapsed_to then redis.call('HSET', KEYS[1], 'lapsed_to', lapsed_to) end
return target
`;

const SCRIPTS = [JOIN, ADMIT, OPEN_SCRIPT, ADVANCE];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    roomJoin(meta: string, entries: string, positions: string, pre: string, admission: string, ...args: string[]): Result<[string, string], Context>;
    roomAdmit(meta: string, positions: string, admission: string, admitted: string, ...args: string[]): Result<string, Context>;
    roomOpen(meta: string, pre: string, ...args: string[]): Result<number, Context>;
    roomAdvance(meta: string, calls: string, present: string, rates: string, ...args: string[]): Result<number, Context>;
  }
}

/** Where the store's Redis is: one server (a redis:// URL) or a cluster's seed nodes. */
export type RedisTarget = string | readonly RedisNode[];

/**
 * The waiting room's connection: bounded everywhere, nothing queued while
 * disconnected. The cluster client pipelines the commands of one event-loop turn
 * per master: without it, 10,000 joins at once overran the 2 s command bound on a
 * loaded machine (each command keeps its own bound).
 */
function connectRedis(target: RedisTarget): Redis | Cluster {
  const options = {
    enableOfflineQueue: false, // while disconnected, fail at once: the room answers "try again"
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
  };
  if (typeof target === 'string') return new Redis(target, { ...options, retryStrategy: (times) => Math.min(times * 200, 2000) });
  return new Cluster(target.map((n) => ({ host: n.host, port: n.port })), {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRedirections: REDIRECTIONS,
    retryDelayOnFailover: RETRY_DELAY_MS,
    retryDelayOnClusterDown: RETRY_DELAY_MS,
    retryDelayOnTryAgain: RETRY_DELAY_MS,
    slotsRefreshTimeout: 1000,
    clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
    redisOptions: options,
  });
}

interface Bucket {
  key: string;
  members: Set<string>;
  failedAtMs: number;
}

export class RedisQueueStore implements QueueStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis | Cluster;
  private lastFailureMs = 0;
  /** The copies of the rooms' registry, with what each listed when it last answered. */
  private readonly buckets: Bucket[];
  /** Per show: when this instance registers it again (on a join). */
  private readonly registerAtMs = new Map<string, number>();
  /** Registry writes still under way (close() waits for them). */
  private readonly registering = new Set<Promise<unknown>>();

  /**
   * `target`: a redis:// URL, or a Redis Cluster's seed nodes. `clock`: a fake time
   * for tests; without it, admission runs on Redis's own clock.
   */
  constructor(target: RedisTarget, private readonly prefix: string, private readonly clock: (() => number) | null = null) {
    this.redis = connectRedis(target);
    this.redis.on('error', () => { this.lastFailureMs = Date.now(); });
    this.redis.defineCommand('roomJoin', { numberOfKeys: 5, lua: JOIN });
    this.redis.defineCommand('roomAdmit', { numberOfKeys: 4, lua: ADMIT });
    this.redis.defineCommand('roomOpen', { numberOfKeys: 2, lua: OPEN_SCRIPT });
    this.redis.defineCommand('roomAdvance', { numberOfKeys: 4, lua: ADVANCE });
    const keys = typeof target === 'string'
      ? [`${prefix}:rooms`]
      : Array.from({ length: REGISTRY_BUCKETS }, (_, i) => `${prefix}:rooms:{${tagForSlot('rooms-', Math.floor(((i + 0.5) * SLOTS) / REGISTRY_BUCKETS))}}`);
    this.buckets = keys.map((key) => ({ key, members: new Set(), failedAtMs: 0 }));
  }

  private key(showId: string, part: string): string {
    return `${this.prefix}:{${showId}}:${part}`;
  }

  /** One key per admission, so that Redis forgets each when it expires (forget() leaves them to that). */
  private admissionKey(showId: string, userId: string): string {
    return this.key(showId, `admission:${userId}`);
  }

  /** The keys of the rooms' registry (its copies on a cluster); for tests. */
  registryKeys(): string[] {
    return this.buckets.map((b) => b.key);
  }

  private async run<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      this.lastFailureMs = Date.now();
      throw new StoreUnavailable(`queue store: ${(err as Error).message}`);
    }
  }

  join(showId: string, userId: string, entryId: string, at: { opensAtMs: number; nowMs: number; seed: string }): Promise<Entry> {
    return this.run(async () => {
      const [entry, position] = await this.redis.roomJoin(
        this.key(showId, 'meta'), this.key(showId, 'entries'), this.key(showId, 'positions'), this.key(showId, 'pre'),
        this.admissionKey(showId, userId), userId, entryId, String(at.opensAtMs), String(at.nowMs), at.seed,
      );
      await this.register(showId);
      return { entryId: entry, position: position === '' ? null : Number(position) };
    });
  }

  /**
   * Adds the show to every copy of the registry, now and then (not on every join:
   * 10,000 joins would be 160,000 writes). Resolves once one copy has it, or once
   * all failed; the others finish in the background.
   */
  private async register(showId: string): Promise<void> {
    const now = Date.now();
    if ((this.registerAtMs.get(showId) ?? 0) > now) return;
    if (this.registerAtMs.size > 10_000) this.registerAtMs.clear();
    this.registerAtMs.set(showId, now + REGISTER_EVERY_MS);
    const writes = this.buckets.map(async (b) => {
      try {
        await this.redis.sadd(b.key, showId);
        b.members.add(showId);
      } catch (err) {
        b.failedAtMs = Date.now();
        this.registerAtMs.set(showId, Date.now() + REGISTER_RETRY_MS);
        throw err;
      }
    });
    const all = Promise.allSettled(writes);
    this.registering.add(all);
    void all.finally(() => this.registering.delete(all));
    // A join whose own keys were written succeeds even if no copy could be: its
    // instance ticks the room (ticker.watch) and registers it again in a second.
    await Promise.any(writes).catch(() => undefined);
  }

  entry(showId: string, userId: string): Promise<Entry | null> {
    return this.run(async () => {
      const [entryId, position] = await Promise.all([
        this.redis.hget(this.key(showId, 'entries'), userId),
        this.redis.hget(this.key(showId, 'positions'), userId),
      ]);
      return entryId === null ? null : { entryId, position: position === null ? null : Number(position) };
    });
  }

  state(showId: string): Promise<RoomState> {
    return this.run(async () => {
      const [m, preSize] = await Promise.all([
        this.redis.hgetall(this.key(showId, 'meta')),
        this.redis.hlen(this.key(showId, 'pre')),
      ]);
      return {
        opened: m.opened === '1',
        ranked: m.ranked === '1',
        tail: Number(m.tail ?? 0),
        serving: Number(m.serving ?? 0),
        preQueue: m.pre_n !== undefined ? Number(m.pre_n) : preSize,
        seed: m.seed ?? null,
        openedAtMs: m.opened_ms ? Number(m.opened_ms) : null,
        paused: m.paused === '1',
        cap: m.cap === undefined || m.cap === '' ? null : Number(m.cap),
        soldOut: m.sold_out === '1',
        admitted: Number(m.admitted ?? 0),
        noShows: Number(m.no_shows ?? 0),
        lapsedThrough: Number(m.lapsed_to ?? 0),
        rate: m.rate === undefined ? null : Number(m.rate),
      };
    });
  }

  open(showId: string, at: { opensAtMs: number; nowMs: number; seed: string }): Promise<boolean> {
    return this.run(async () => (await this.redis.roomOpen(this.key(showId, 'meta'), this.key(showId, 'pre'),
      String(at.opensAtMs), String(at.nowMs), at.seed)) === 1);
  }

  preQueue(showId: string): Promise<Map<string, string>> {
    return this.run(async () => new Map(Object.entries(await this.redis.hgetall(this.key(showId, 'pre')))));
  }

  writeOpening(showId: string, positions: readonly (readonly [string, number])[]): Promise<void> {
    return this.run(async () => {
      const CHUNK = 2000;
      for (let i = 0; i < positions.length; i += CHUNK) {
        const fields = positions.slice(i, i + CHUNK).flatMap(([u, p]) => [u, String(p)]);
        await this.redis.hset(this.key(showId, 'positions'), ...fields);
      }
      await this.redis.hset(this.key(showId, 'meta'), 'ranked', '1');
    });
  }

  lease(showId: string, name: string, ms: number): Promise<boolean> {
    return this.run(async () => (await this.redis.set(this.key(showId, `lease:${name}`), '1', 'PX', ms, 'NX')) === 'OK');
  }

  advance(showId: string, input: AdvanceInput): Promise<void> {
    return this.run(async () => {
      await this.redis.roomAdvance(this.key(showId, 'meta'), this.key(showId, 'calls'), this.key(showId, 'present'), this.key(showId, 'rates'),
        String(input.ratePerMinute), String(input.graceMs), this.clock ? String(Math.floor(this.clock())) : '', input.instanceId, String(input.rateTtlMs),
        String(input.firstStepMs ?? 0));
    });
  }

  admit(showId: string, userId: string, expiresAtS: number): Promise<{ expiresAtS: number } | 'lapsed'> {
    return this.run(async () => {
      const r = await this.redis.roomAdmit(this.key(showId, 'meta'), this.key(showId, 'positions'), this.admissionKey(showId, userId), this.key(showId, 'admitted'),
        userId, String(expiresAtS));
      return r === '' ? 'lapsed' : { expiresAtS: Number(r) };
    });
  }

  present(showId: string, position: number): Promise<void> {
    return this.run(async () => { await this.redis.zadd(this.key(showId, 'present'), position, String(position)); });
  }

  control(showId: string, c: { paused?: boolean; cap?: number | null }): Promise<void> {
    return this.run(async () => {
      const fields: string[] = [];
      if (c.paused !== undefined) fields.push('paused', c.paused ? '1' : '0');
      if (c.cap !== undefined) fields.push('cap', c.cap === null ? '' : String(c.cap));
      if (fields.length) await this.redis.hset(this.key(showId, 'meta'), ...fields);
    });
  }

  setSoldOut(showId: string, soldOut: boolean): Promise<void> {
    return this.run(async () => { await this.redis.hset(this.key(showId, 'meta'), 'sold_out', soldOut ? '1' : '0'); });
  }

  keepRule(showId: string, rule: ShowRule): Promise<void> {
    return this.run(async () => { await this.redis.set(this.key(showId, 'rule'), JSON.stringify(rule)); });
  }

  keptRule(showId: string): Promise<ShowRule | null> {
    return this.run(async () => {
      const kept = await this.redis.get(this.key(showId, 'rule'));
      return kept === null ? null : (JSON.parse(kept) as ShowRule);
    });
  }

  forget(showId: string): Promise<void> {
    return this.run(async () => {
      const parts = ['meta', 'entries', 'positions', 'pre', 'calls', 'present', 'admitted', 'rates', 'lease:opening', 'rule'];
      await this.redis.del(...parts.map((p) => this.key(showId, p)));
      this.registerAtMs.delete(showId);
      // A copy that cannot be reached keeps the show for now: a ticker that finds it
      // there finds the show over and forgets it again.
      const removed = await Promise.allSettled(this.buckets.map(async (b) => {
        await this.redis.srem(b.key, showId);
        b.members.delete(showId);
      }));
      if (removed.every((r) => r.status === 'rejected')) throw (removed[0] as PromiseRejectedResult).reason;
    });
  }

  /**
   * The rooms every copy of the registry lists, together. A copy that does not
   * answer counts with what it listed last (and is left alone for a moment); with
   * none answering, the store is unavailable.
   */
  rooms(): Promise<string[]> {
    return this.run(async () => {
      const now = Date.now();
      const asked = this.buckets.filter((b) => now - b.failedAtMs >= BUCKET_BACKOFF_MS);
      const answers = await Promise.allSettled(asked.map(async (b) => {
        try {
          b.members = new Set(await this.redis.smembers(b.key));
        } catch (err) {
          b.failedAtMs = Date.now();
          throw err;
        }
      }));
      const failed = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      if (failed.length === this.buckets.length) throw failed[0]!.reason;
      if (asked.length === 0 && this.buckets.length === 1) throw new Error('Redis did not answer');
      const all = new Set<string>();
      for (const b of this.buckets) for (const id of b.members) all.add(id);
      return [...all];
    });
  }

  /** Resolves once connected (and the scripts loaded), or after a short wait. */
  async ready(): Promise<void> {
    if (this.redis.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, 2000);
        this.redis.once('ready', done);
      });
    }
    await this.loadScripts();
  }

  /**
   * Loads the scripts into every master now: a master that has not seen them
   * answers a burst of 10,000 joins with 10,000 NOSCRIPT errors, and ioredis then
   * sends each script's whole text 10,000 times. Best effort (a master that was
   * down loads them at its first call).
   */
  private async loadScripts(): Promise<void> {
    const masters = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    await Promise.allSettled(masters.flatMap((node) => SCRIPTS.map((lua) => node.script('LOAD', lua))));
  }

  healthy(): boolean {
    return this.redis.status === 'ready' && Date.now() - this.lastFailureMs > 2000;
  }

  async close(): Promise<void> {
    await Promise.all(this.registering);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
