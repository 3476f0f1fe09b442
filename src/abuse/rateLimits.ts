// The abuse limiters (rate-limiter-flexible): shared by every instance through
// Redis when one is configured (REDIS_URL, or a Redis Cluster with
// REDIS_CLUSTER_NODES: every limiter key is one key, its own slot), in process otherwise. If Redis stops answering
// (down, or slower than COMMAND_TIMEOUT_MS), each limiter falls back to an
// in-memory twin with the same budget: limits then hold per instance instead of
// across all of them, and no request fails or waits because of Redis.
import { Cluster, Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { ALLOWED, lockSecondsAfter, policies, retryAfterSeconds, signInAttemptKey, type Policies, type Policy, type PolicyName, type Verdict } from '../domain/rateLimits.js';

const COMMAND_TIMEOUT_MS = 300;
// On a cluster with a master down, a key of its slots fails after this many tries (to the twin).
const REDIRECTIONS = 2;
// Failed sign-ins from one address count as "in a row" for a day unless a success from it resets them.
const FAILURE_MEMORY_SECONDS = 86_400;

export interface RateLimitsLog {
  warn(obj: object, msg: string): void;
}

export class RateLimits {
  readonly policies: Policies;
  private readonly limiters = new Map<PolicyName, RateLimiterAbstract>();
  private readonly failures: RateLimiterAbstract;
  private readonly locks: RateLimiterAbstract;
  private readonly accountFailures: RateLimiterAbstract;

  private constructor(private readonly config: Readonly<Config>, private readonly redis: Redis | Cluster | null) {
    this.policies = policies(config.rateLimits);
    for (const p of Object.values(this.policies)) {
      // A key past its budget is refused from memory for the rest of its window, without asking Redis again.
      this.limiters.set(p.name, this.limiter(p.name, p.points, p.seconds, p.points + 1));
    }
    // Both keyed by account and address (signInAttemptKey).
    this.failures = this.limiter('sign_in_failures', Number.MAX_SAFE_INTEGER, FAILURE_MEMORY_SECONDS);
    this.locks = this.limiter('sign_in_lock', 1, 1);
    const ceiling = config.rateLimits.signInFailuresPerAccount;
    this.accountFailures = this.limiter('sign_in_account_failures', ceiling.points, ceiling.seconds);
  }

  /** The limits of this configuration; connects to Redis when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set. */
  static open(config: Readonly<Config>, log?: RateLimitsLog): RateLimits {
    let redis: Redis | Cluster | null = null;
    const options = {
      enableOfflineQueue: false, // while disconnected, fail at once (to the in-memory twin)
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
    };
    if (config.redisClusterNodes) {
      redis = new Cluster(config.redisClusterNodes.map((n) => ({ host: n.host, port: n.port })), {
        enableOfflineQueue: false,
        maxRedirections: REDIRECTIONS,
        retryDelayOnFailover: 50,
        retryDelayOnClusterDown: 50,
        retryDelayOnTryAgain: 50,
        slotsRefreshTimeout: 1000,
        clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
        redisOptions: options,
      });
    } else if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { ...options, retryStrategy: (times) => Math.min(times * 200, 2000) });
    }
    if (redis) {
      let lastWarned = 0;
      const warn = (err: Error) => {
        if (Date.now() - lastWarned < 10_000) return;
        lastWarned = Date.now();
        log?.warn({ err: err.message }, 'rate limits: Redis unreachable, limiting per instance meanwhile');
      };
      redis.on('error', warn);
      if (redis instanceof Cluster) redis.on('node error', warn);
    }
    return new RateLimits(config, redis);
  }

  private limiter(name: string, points: number, duration: number, inMemoryBlockOnConsumed = 0): RateLimiterAbstract {
    const keyPrefix = `${this.config.rateLimitPrefix}:${name}`;
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    if (!this.redis) return memory;
    return new RateLimiterRedis({
      storeClient: this.redis, keyPrefix, points, duration, inMemoryBlockOnConsumed,
      rejectIfRedisNotReady: true, insuranceLimiter: memory,
    });
  }

  /** Takes one request from the key's budget under the policy. */
  async consume(policy: Policy, key: string): Promise<Verdict> {
    try {
      await this.limiters.get(policy.name)!.consume(key);
      return ALLOWED;
    } catch (err) {
      if (err instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: retryAfterSeconds(err.msBeforeNext) };
      throw err;
    }
  }

  /**
   * Whether this address may try a password for this account now. Reads, counts
   * nothing: refused while its own failures in a row have locked it out of the
   * account (the `lock`), or while the account is past its ceiling of failures
   * from everywhere and this address is one of those failing (the `storm`). An
   * address that has not been failing for the account is never refused here.
   */
  async signInAllowed(account: string, address: string): Promise<{ verdict: Verdict; policy: 'sign_in_failures' | 'sign_in_account_failures' }> {
    const attempt = signInAttemptKey(account, address);
    const [lock, failing, storm] = await Promise.all([this.locks.get(attempt), this.failures.get(attempt), this.accountFailures.get(account)]);
    if (lock && lock.consumedPoints > 1 && lock.msBeforeNext > 0) {
      return { verdict: { allowed: false, retryAfterSeconds: retryAfterSeconds(lock.msBeforeNext) }, policy: 'sign_in_failures' };
    }
    const ceiling = this.config.rateLimits.signInFailuresPerAccount.points;
    if (failing && failing.consumedPoints > 0 && storm && storm.consumedPoints >= ceiling && storm.msBeforeNext > 0) {
      return { verdict: { allowed: false, retryAfterSeconds: retryAfterSeconds(storm.msBeforeNext) }, policy: 'sign_in_account_failures' };
    }
    return { verdict: ALLOWED, policy: 'sign_in_failures' };
  }

  /**
   * Counts a failed sign-in from this address against the account: past the free
   * ones in a row, locks the address out of the account for a wait that doubles
   * with each; and one failure towards the account's ceiling.
   */
  async signInFailed(account: string, address: string): Promise<void> {
    const attempt = signInAttemptKey(account, address);
    const [failures] = await Promise.all([pointsAfter(this.failures.consume(attempt)), pointsAfter(this.accountFailures.consume(account))]);
    const seconds = lockSecondsAfter(failures, this.config.rateLimits);
    if (seconds > 0) await this.locks.block(attempt, seconds);
  }

  /** A correct password ends this address's run of failures on the account. */
  async signInSucceeded(account: string, address: string): Promise<void> {
    await this.failures.delete(signInAttemptKey(account, address));
  }

  /** Resolves once Redis is connected, or after `ms` (until then the limits hold in memory). */
  async ready(ms = 2000): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      redis.once('ready', done);
    });
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis!.disconnect());
  }
}

/** The points a key holds after a consume, whether or not that consume was over the budget. */
async function pointsAfter(consumed: Promise<RateLimiterRes>): Promise<number> {
  try {
    return (await consumed).consumedPoints;
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    return err.consumedPoints;
  }
}
