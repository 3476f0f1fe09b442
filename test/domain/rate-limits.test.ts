// The rate-limit policy as data (src/domain/rateLimits.ts), its configuration,
// RATE_LIMIT_EXEMPT matching, and the in-process limiter behind the queue-join
// policy (the queue route itself comes with the waiting room).
import { describe, expect, it } from 'vitest';
import { loadConfig, rateLimitSettings } from '../../src/config.js';
import { accountOfEmail, lockSecondsAfter, policies, retryAfterSeconds } from '../../src/domain/rateLimits.js';
import { ClientExemptions } from '../../src/abuse/exemptions.js';
import { RateLimits } from '../../src/abuse/rateLimits.js';

describe('rate-limit policy', () => {
  it('has defaults a buyer never meets and a script does', () => {
    const p = policies(rateLimitSettings({}));
    expect(p.sign_up_address).toMatchObject({ points: 20, seconds: 600 });
    expect(p.sign_in_address).toMatchObject({ points: 60, seconds: 60 });
    expect(p.sign_in_account_address).toMatchObject({ points: 10, seconds: 60 });
    expect(p.purchase_account).toMatchObject({ points: 60, seconds: 60 });
    expect(p.purchase_address).toMatchObject({ points: 1200, seconds: 60 });
    expect(p.queue_join_account).toMatchObject({ name: 'queue_join_account', points: 10, seconds: 60 });
    expect(p.queue_join_address).toMatchObject({ name: 'queue_join_address', points: 300, seconds: 60 });
  });

  it('reads every limit from the environment as <requests>/<seconds>', () => {
    const s = rateLimitSettings({
      RATE_LIMIT_QUEUE_JOIN_PER_ACCOUNT: '3/10', RATE_LIMIT_QUEUE_JOIN_PER_ADDRESS: '50/5', RATE_LIMIT_SIGN_UP_PER_ADDRESS: '7/3600',
      RATE_LIMIT_SIGN_IN_FREE_FAILURES: '3', RATE_LIMIT_SIGN_IN_LOCK_SECONDS: '5', RATE_LIMIT_SIGN_IN_LOCK_MAX_SECONDS: '60',
    });
    expect(s.queueJoinPerAccount).toEqual({ points: 3, seconds: 10 });
    expect(s.queueJoinPerAddress).toEqual({ points: 50, seconds: 5 });
    expect(s.signUpPerAddress).toEqual({ points: 7, seconds: 3600 });
    expect([s.signInFreeFailures, s.signInLockSeconds, s.signInLockMaxSeconds]).toEqual([3, 5, 60]);
    expect(rateLimitSettings({}).signInFailuresPerAccount).toEqual({ points: 100, seconds: 600 });
    expect(rateLimitSettings({ RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT: '30/120' }).signInFailuresPerAccount).toEqual({ points: 30, seconds: 120 });
    // The per-account attempt budget let anyone lock an account's owner out; a deployment still setting it is told so.
    expect(() => rateLimitSettings({ RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '10/60' })).toThrow(/RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT/);
    for (const bad of ['10', '0/60', '10/0', 'ten/60', '10/60s']) {
      expect(() => rateLimitSettings({ RATE_LIMIT_PURCHASE_PER_ACCOUNT: bad }), bad).toThrow(/RATE_LIMIT_PURCHASE_PER_ACCOUNT/);
    }
    const c = loadConfig({ RATE_LIMIT_EXEMPT: ' 10.0.0.0/8, ::1 ', TRUST_PROXY: '1', IDEMPOTENCY_TTL_HOURS: '48' });
    expect(c.rateLimitExempt).toEqual(['10.0.0.0/8', '::1']);
    expect(c.trustProxy).toBe(1);
    expect(c.idempotencyTtlHours).toBe(48);
    expect(loadConfig({}).rateLimitExempt).toEqual([]);
    expect(loadConfig({}).trustProxy).toBe(false);
  });

  it('locks an account for a wait that doubles with each failure past the free ones, up to the maximum', () => {
    const s = { signInFreeFailures: 5, signInLockSeconds: 2, signInLockMaxSeconds: 900 };
    expect([1, 5, 6, 7, 8, 9, 14, 15, 60, 10_000].map((n) => lockSecondsAfter(n, s))).toEqual([0, 0, 2, 4, 8, 16, 512, 900, 900, 900]);
  });

  it('rounds waits up to whole seconds, at least one, and keys accounts case-insensitively', () => {
    expect([0, 1, 999, 1000, 1001, 59_500].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 2, 60]);
    expect(accountOfEmail('Admin@BoxOffice.Test')).toBe(accountOfEmail('admin@boxoffice.test'));
    expect(accountOfEmail('Admin@BoxOffice.Test')).not.toBe(accountOfEmail('admin2@boxoffice.test'));
    expect(accountOfEmail('admin@boxoffice.test')).not.toContain('boxoffice');
  });
});

describe('RATE_LIMIT_EXEMPT', () => {
  const exempt = new ClientExemptions(['127.0.0.1', '10.1.0.0/16', '::1', '2001:db8::/32']);

  it('matches addresses and CIDR ranges, IPv4 and IPv6, and mapped IPv4 addresses as IPv4', () => {
    for (const yes of ['127.0.0.1', '::ffff:127.0.0.1', '10.1.255.3', '::FFFF:10.1.0.1', '::1', '2001:db8:1::5']) expect(exempt.covers(yes), yes).toBe(true);
    for (const no of ['127.0.0.2', '10.2.0.1', '::2', '2001:db9::1', '::ffff:10.2.0.1', '', undefined]) expect(exempt.covers(no), String(no)).toBe(false);
    expect(new ClientExemptions([]).covers('127.0.0.1')).toBe(false);
  });

  it('refuses at boot what is not an address or a range', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.0/', '::1/129', '1.2.3.4/8/1', '300.1.1.1']) {
      expect(() => new ClientExemptions([bad]), bad).toThrow(/RATE_LIMIT_EXEMPT/);
    }
  });
});

describe('the queue-join limiter, in process', () => {
  it('lets an account join 3 times in its window, then says when to come back', async () => {
    const config = { ...loadConfig({}), rateLimits: rateLimitSettings({ RATE_LIMIT_QUEUE_JOIN_PER_ACCOUNT: '3/30' }) };
    const limits = RateLimits.open(config);
    const policy = limits.policies.queue_join_account;
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push(await limits.consume(policy, 'usr_1'));
    expect(verdicts.slice(0, 3)).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    for (const v of verdicts.slice(3)) {
      expect(v.allowed).toBe(false);
      if (!v.allowed) expect(v.retryAfterSeconds).toBeGreaterThanOrEqual(29);
    }
    expect(await limits.consume(policy, 'usr_2')).toEqual({ allowed: true });
    expect(await limits.consume(limits.policies.queue_join_address, '127.0.0.1')).toEqual({ allowed: true });
    await limits.close();
  });
});
