// The abuse limiters (rate-limiter-flexible): shared by every instance through
// Redis when one is configured, in process otherwise. If Redis stops answering
// (down, or slower than COMMAND_TIMEOUT_MS), each limiter falls back to an
// in-memory twin with the same budget: limits then hold per instance instead of
// across all of them, and no request fails or waits because of Redis.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { ALLOWED, lockSecondsAfter, policies, retryAfterSeconds, type Policies, type Policy, type PolicyName, type Verdict } from '../domain/rateLimits.js';

const COMMAND_TIMEOUT_MS = 300;
// Failed sign-ins count as "in a row" for a day unless a success resets them.
const FAILURE_MEMORY_SECONDS = 86_400;

export interface RateLimitsLog {
  warn(obj: object, msg: string): void;
}

export class RateLimits {
  readonly policies: Policies;
  private readonly limiters = new Map<PolicyName, RateLimiterAbstract>();
  private readonly failures: RateLimiterAbstract;
  private readonly locks: RateLimiterAbstract;

  private constructor(private readonly config: Readonly<Config>, private readonly redis: Redis | null) {
    this.policies = policies(config.rateLimits);
    for (const p of Object.values(this.policies)) {
      // A key past its budget is refused from memory for the rest of its window, without asking Redis again.
      this.limiters.set(p.name, this.limiter(p.name, p.points, p.seconds, p.points + 1));
    }
    this.failures = this.limiter('sign_in_failures', Number.MAX_SAFE_INTEGER, FAILURE_MEMORY_SECONDS);
    this.locks = this.limiter('sign_in_lock', 1, 1);
  }

  /** The limits of this configuration; connects to Redis when `REDIS_URL` is set. */
  static open(config: Readonly<Config>, log?: RateLimitsLog): RateLimits {
    let redis: Redis | null = null;
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, {
        enableOfflineQueue: false, // while disconnected, fail at once (to the in-memory twin)
        maxRetriesPerRequest: 0,
        commandTimeout: COMMAND_TIMEOUT_MS,
        connectTimeout: 2000,
        retryStrategy: (times) => Math.min(times * 200, 2000),
      });
      let lastWarned = 0;
      redis.on('error', (err: Error) => {
        if (Date.now() - lastWarned < 10_000) return;
        lastWarned = Date.now();
        log?.warn({ err: err.message }, 'rate limits: Redis unreachable, limiting per instance meanwhile');
      });
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

  /** Whether failed sign-ins have locked the account for now. Reads, counts nothing. */
  async signInLock(account: string): Promise<Verdict> {
    const res = await this.locks.get(account);
    if (!res || res.consumedPoints <= 1 || res.msBeforeNext <= 0) return ALLOWED;
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(res.msBeforeNext) };
  }

  /** Counts a failed sign-in; past the free ones, locks the account for a wait that doubles with each. */
  async signInFailed(account: string): Promise<void> {
    let failures: number;
    try {
      failures = (await this.failures.consume(account)).consumedPoints;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      failures = err.consumedPoints;
    }
    const seconds = lockSecondsAfter(failures, this.config.rateLimits);
    if (seconds > 0) await this.locks.block(account, seconds);
  }

  /** A correct password ends the run of failures. */
  async signInSucceeded(account: string): Promise<void> {
    await this.failures.delete(account);
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis!.disconnect());
  }
}
