// The contract's abuse limits (API.md "Abuse", issue 6 item 3): sign-up per
// address, sign-in per account and per address with a lock that grows with
// failures in a row, 429 RATE_LIMITED with Retry-After, RATE_LIMIT_EXEMPT. Run
// with the in-process limiters and with Redis; then two instances sharing Redis,
// and an unreachable Redis. Every client is a loopback address of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { rateLimitSettings } from '../../src/config.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import type { HttpAnswer, HttpClient } from '../support/http.js';
import { expectProblem, describeAnswer } from '../support/problems.js';
import { REDIS_URL, clientFrom, closeClients, countStatuses, fire, redisPrefix } from '../support/clients.js';

const PASSWORD = 'password-123';
// The defaults, but a short lock, so that the test can wait for it to lift.
const SETTINGS = rateLimitSettings({ RATE_LIMIT_SIGN_IN_LOCK_SECONDS: '2', RATE_LIMIT_SIGN_IN_LOCK_MAX_SECONDS: '4' });
const EXEMPT = '127.0.0.9';
const tag = randomBytes(4).toString('hex');
const email = (who: string) => `${who}-${tag}@example.test`;

/** A 429 RATE_LIMITED problem whose Retry-After is whole seconds ≥ 1 and matches `retry_after`. */
function expectRateLimited(r: HttpAnswer): number {
  expectProblem(r, 429, 'RATE_LIMITED');
  const header = String(r.headers['retry-after']);
  expect(header, describeAnswer(r)).toMatch(/^[1-9]\d*$/);
  expect(r.body.retry_after).toBe(Number(header));
  return Number(header);
}

async function register(http: HttpClient, who: string): Promise<string> {
  const r = await http.post('/v1/users', { email: email(who), password: PASSWORD });
  expect(r.status, describeAnswer(r)).toBe(201);
  return r.body.token as string;
}

async function rateLimitedCount(t: TestService, policy: string): Promise<number> {
  const m = await t.service.ctx.metrics.rateLimited.get();
  return m.values.find((v) => v.labels.policy === policy)?.value ?? 0;
}

describe.each([
  ['in process', null],
  ['shared through Redis', REDIS_URL],
] as const)('abuse limits, %s', (_mode, redisUrl) => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  const keys = redisPrefix();
  const from = (address: string) => clientFrom(t.baseUrl, address);

  beforeAll(async () => {
    t = await startTestService({ config: { redisUrl, rateLimitExempt: [EXEMPT], rateLimitPrefix: keys.prefix, rateLimits: SETTINGS } });
    ({ showId, seats } = await createShow(t, { rows: 4, seatsPerRow: 20 }));
  });
  afterAll(async () => {
    await t?.close();
    await closeClients();
    const deleted = await keys.cleanUp();
    if (redisUrl) expect(deleted).toBeGreaterThan(0);
  });

  /** A normal buyer on its own account and address: signs in, holds a seat, releases it; every answer must be a success. */
  async function normalBuyer(http: HttpClient, who: string, rounds: number, seat: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const s = await http.post('/v1/sessions', { email: email(who), password: PASSWORD });
      statuses.push(s.status);
      const h = await http.post(`/v1/shows/${showId}/holds`, { seats: [seat] }, s.body.token as string);
      statuses.push(h.status);
      statuses.push((await http.delete(`/v1/holds/${h.body.hold_id as string}`, s.body.token as string)).status);
    }
    return statuses;
  }

  it('1,000 sign-ups from one address: exactly the configured 20 get through, the rest are 429; a buyer elsewhere is not throttled', async () => {
    const buyer = from('127.0.0.2');
    await register(buyer, 'buyer');
    const started = Date.now();
    const [flood, buyerStatuses] = await Promise.all([
      fire(1000, 50, (i) => t.http.post('/v1/users', { email: email(`flood-${i}`), password: PASSWORD })),
      normalBuyer(buyer, 'buyer', 3, seats[0]!),
    ]);
    const seconds = (Date.now() - started) / 1000;
    console.log(`[${_mode}] 1,000 sign-ups from one address in ${seconds.toFixed(1)} s:`, countStatuses(flood), 'normal buyer:', buyerStatuses.join(' '));
    expect(seconds).toBeLessThan(60);
    expect(countStatuses(flood)).toEqual({ 201: SETTINGS.signUpPerAddress.points, 429: 1000 - SETTINGS.signUpPerAddress.points });
    for (const r of flood.filter((a) => a.status === 429)) {
      expect(expectRateLimited(r)).toBeLessThanOrEqual(SETTINGS.signUpPerAddress.seconds);
    }
    expect(buyerStatuses).toEqual([200, 201, 204, 200, 201, 204, 200, 201, 204]);
    expect(await rateLimitedCount(t, 'sign_up_address')).toBe(980);
  });

  it('1,000 wrong passwords for one account from one address: that address is locked out, the owner and a buyer are not; the exempt address never gets a 429', async () => {
    await register(from('127.0.0.5'), 'victim');
    const buyer = from('127.0.0.2');
    const attacker = from('127.0.0.3');
    const [flood, buyerStatuses] = await Promise.all([
      fire(1000, 50, (i) => attacker.post('/v1/sessions', { email: email('victim').toUpperCase(), password: `wrong-${i}-password` })),
      normalBuyer(buyer, 'buyer', 2, seats[1]!),
    ]);
    console.log(`[${_mode}] 1,000 wrong passwords for one account:`, countStatuses(flood), 'normal buyer:', buyerStatuses.join(' '));
    // 50 at a time: the lock falls only once failures come back, so the burst's own budget on the
    // account (attempts counted before the password is checked) is what keeps the first wave small.
    expect(countStatuses(flood)[401]).toBeLessThanOrEqual(SETTINGS.signInPerAccountAddress.points);
    expect(countStatuses(flood)[429]).toBeGreaterThanOrEqual(1000 - SETTINGS.signInPerAccountAddress.points);
    flood.filter((a) => a.status === 429).forEach(expectRateLimited);
    expect(buyerStatuses).toEqual([200, 201, 204, 200, 201, 204]);
    const owner = await from('127.0.0.5').post('/v1/sessions', { email: email('victim'), password: PASSWORD });
    expect(owner.status, describeAnswer(owner)).toBe(200);
    // A trusted client is never throttled, wrong passwords or not.
    const exempt = from(EXEMPT);
    const trusted = await fire(30, 10, () => exempt.post('/v1/sessions', { email: email('victim'), password: PASSWORD }));
    expect(countStatuses(trusted)).toEqual({ 200: 30 });
    const wrong = await fire(30, 10, () => exempt.post('/v1/sessions', { email: email('victim'), password: 'wrong-password' }));
    expect(countStatuses(wrong)).toEqual({ 401: 30 });
    const signUps = await fire(25, 10, (i) => exempt.post('/v1/users', { email: email(`trusted-${i}`), password: PASSWORD }));
    expect(countStatuses(signUps)).toEqual({ 201: 25 });
  });

  it('1,000 sign-ins from one address over many accounts: the address budget (60) holds', async () => {
    const attacker = from('127.0.0.6');
    const flood = await fire(1000, 50, (i) => attacker.post('/v1/sessions', { email: email(`nobody-${i}`), password: PASSWORD }));
    console.log(`[${_mode}] 1,000 sign-ins from one address:`, countStatuses(flood));
    expect(countStatuses(flood)).toEqual({ 401: SETTINGS.signInPerAddress.points, 429: 1000 - SETTINGS.signInPerAddress.points });
  });

  it('7 wrong passwords from rotating addresses do not lock the account: the right one from a fresh address signs in', async () => {
    await register(from('127.0.0.10'), 'admin-like');
    const wrong: HttpAnswer[] = [];
    for (let i = 0; i < 7; i++) wrong.push(await from(`127.0.0.${20 + i}`).post('/v1/sessions', { email: email('admin-like'), password: `wrong-${i}-password` }));
    const right = await from('127.0.0.30').post('/v1/sessions', { email: email('admin-like'), password: PASSWORD });
    console.log(`[${_mode}] 7 wrong passwords from 7 addresses:`, countStatuses(wrong), 'then the right one from an 8th:', right.status);
    expect(countStatuses(wrong)).toEqual({ 401: 7 });
    expect(right.status, describeAnswer(right)).toBe(200);
  });

  it('60 wrong passwords in a burst are refused long before the last; once the lock lifts, the right password works', async () => {
    await register(from('127.0.0.7'), 'forgetful');
    const attacker = from('127.0.0.4');
    const burst: HttpAnswer[] = [];
    for (let i = 0; i < 60; i++) burst.push(await attacker.post('/v1/sessions', { email: email('forgetful'), password: `wrong-${i}-password` }));
    const statuses = burst.map((r) => r.status);
    console.log(`[${_mode}] 60 wrong passwords in a burst:`, countStatuses(burst), 'first 429 at attempt', statuses.indexOf(429) + 1);
    // The free failures answer 401; the next one locks the account; from then on 429 without checking the password.
    expect(statuses.slice(0, SETTINGS.signInFreeFailures + 1)).toEqual(Array(SETTINGS.signInFreeFailures + 1).fill(401));
    expect(statuses[SETTINGS.signInFreeFailures + 1]).toBe(429);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(SETTINGS.signInFreeFailures + 3);
    const wait = expectRateLimited(burst[SETTINGS.signInFreeFailures + 1]!);
    expect(wait).toBeLessThanOrEqual(SETTINGS.signInLockMaxSeconds);
    // Even the right password is refused from the failing address while it is locked out of the account...
    expectRateLimited(await attacker.post('/v1/sessions', { email: email('forgetful'), password: PASSWORD }));
    // ...but the account is not locked: its owner elsewhere signs in meanwhile.
    const owner = await from('127.0.0.7').post('/v1/sessions', { email: email('forgetful'), password: PASSWORD });
    expect(owner.status, describeAnswer(owner)).toBe(200);
    const last = burst.filter((r) => r.status === 429).map((r) => Number(r.headers['retry-after']));
    await new Promise((r) => setTimeout(r, Math.max(...last) * 1000 + 200));
    const ok = await attacker.post('/v1/sessions', { email: email('forgetful'), password: PASSWORD });
    expect(ok.status, describeAnswer(ok)).toBe(200);
    // A success ends that address's run of failures: its next wrong password is a plain 401 again.
    const again = await attacker.post('/v1/sessions', { email: email('forgetful'), password: 'wrong-again-1' });
    expect(again.status, describeAnswer(again)).toBe(401);
    expect(await rateLimitedCount(t, 'sign_in_failures')).toBeGreaterThanOrEqual(50);
  });
});

describe('a distributed guess storm on one account', () => {
  // A small ceiling, so that a dozen addresses make a storm.
  const settings = { ...SETTINGS, signInFailuresPerAccount: { points: 5, seconds: 60 } };
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ config: { rateLimitExempt: [], rateLimits: settings } });
  });
  afterAll(async () => {
    await t?.close();
    await closeClients();
  });

  it('past the account\'s ceiling of failures, slows the addresses that are failing, never one that is not', async () => {
    const address = (i: number) => `127.0.1.${i}`;
    await register(clientFrom(t.baseUrl, address(100)), 'stormed');
    const guess = (i: number, password = `wrong-${i}-password`) => clientFrom(t.baseUrl, address(i)).post('/v1/sessions', { email: email('stormed'), password });
    const first: HttpAnswer[] = [];
    for (let i = 0; i < 8; i++) first.push(await guess(i));
    // Each address guesses once: one failure each, none of them locked out on its own.
    expect(countStatuses(first)).toEqual({ 401: 8 });
    const second: HttpAnswer[] = [];
    for (let i = 0; i < 8; i++) second.push(await guess(i, PASSWORD));
    console.log('a storm of 8 addresses, ceiling 5: first guesses', countStatuses(first), 'then the right password from each:', countStatuses(second));
    // Now past the ceiling: an address that failed waits, even with the right password...
    second.forEach(expectRateLimited);
    for (const r of second) expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    // ...while one that has not been failing signs in.
    const owner = await clientFrom(t.baseUrl, address(100)).post('/v1/sessions', { email: email('stormed'), password: PASSWORD });
    expect(owner.status, describeAnswer(owner)).toBe(200);
    expect(await rateLimitedCount(t, 'sign_in_account_failures')).toBe(8);
  });
});

describe('two instances on one Redis', () => {
  const keys = redisPrefix();
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    const config = { redisUrl: REDIS_URL, rateLimitExempt: [], rateLimitPrefix: keys.prefix, rateLimits: SETTINGS };
    [a, b] = await Promise.all([startTestService({ config }), startTestService({ config })]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await keys.cleanUp();
  });

  it('count one budget: 40 sign-ups from one address across both get 20 through in all', async () => {
    const answers = await fire(40, 8, (i) => (i % 2 ? a : b).http.post('/v1/users', { email: email(`shared-${i}`), password: PASSWORD }));
    const byInstance = [0, 1].map((k) => countStatuses(answers.filter((_, i) => i % 2 === k)));
    console.log('two instances, 40 sign-ups:', countStatuses(answers), 'per instance:', JSON.stringify(byInstance));
    expect(countStatuses(answers)).toEqual({ 201: 20, 429: 20 });
  });
});

describe('Redis unreachable', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ config: { redisUrl: 'redis://127.0.0.1:1', rateLimitExempt: [], rateLimits: SETTINGS } });
  });
  afterAll(async () => { await t?.close(); });

  it('limits each instance in memory instead: no 5xx, and the budget still holds', async () => {
    const answers = await fire(60, 10, (i) => t.http.post('/v1/users', { email: email(`noredis-${i}`), password: PASSWORD }));
    console.log('Redis unreachable, 60 sign-ups:', countStatuses(answers));
    expect(countStatuses(answers)).toEqual({ 201: 20, 429: 40 });
  });
});

describe('TRUST_PROXY', () => {
  let t: TestService;
  let direct: TestService;
  beforeAll(async () => {
    const rateLimits = rateLimitSettings({ RATE_LIMIT_SIGN_UP_PER_ADDRESS: '3/600' });
    [t, direct] = await Promise.all([
      startTestService({ config: { trustProxy: true, rateLimitExempt: ['198.51.100.0/24'], rateLimits } }),
      startTestService({ config: { rateLimitExempt: [], rateLimits } }),
    ]);
  });
  afterAll(async () => { await Promise.all([t?.close(), direct?.close()]); });

  const signUp = (s: TestService, who: string, forwardedFor: string) =>
    s.http.post('/v1/users', { email: email(who), password: PASSWORD }, undefined, { 'x-forwarded-for': forwardedFor });

  it('behind a proxy, counts the forwarded client address (and exempts by it); without TRUST_PROXY the header changes nothing', async () => {
    const a = await fire(5, 5, (i) => signUp(t, `proxied-a-${i}`, '203.0.113.7'));
    const b = await fire(5, 5, (i) => signUp(t, `proxied-b-${i}`, '203.0.113.8'));
    const trusted = await fire(5, 5, (i) => signUp(t, `proxied-c-${i}`, '198.51.100.5'));
    expect([countStatuses(a), countStatuses(b), countStatuses(trusted)]).toEqual([{ 201: 3, 429: 2 }, { 201: 3, 429: 2 }, { 201: 5 }]);
    const spoofed = await fire(6, 6, (i) => signUp(direct, `spoofed-${i}`, `198.51.100.${i + 1}`));
    expect(countStatuses(spoofed)).toEqual({ 201: 3, 429: 3 });
  });
});
