// The purchase path's limits (API.md "Abuse"): holds, their release and bookings
// count against the caller's account and address; past either, 429 RATE_LIMITED
// with Retry-After, answered before anything is claimed or stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitSettings } from '../../src/config.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { expectProblem } from '../support/problems.js';
import { clientFrom, closeClients, countStatuses, fire } from '../support/clients.js';

const SETTINGS = rateLimitSettings({ RATE_LIMIT_PURCHASE_PER_ACCOUNT: '5/60', RATE_LIMIT_PURCHASE_PER_ADDRESS: '8/60' });

describe('purchase path limits', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;
  let bob: Buyer;
  let carol: Buyer;

  beforeAll(async () => {
    t = await startTestService({ config: { rateLimitExempt: [], rateLimits: SETTINGS } });
    ({ showId, seats } = await createShow(t, { rows: 4, seatsPerRow: 20, per_user_limit: 40 }));
    [alice, bob, carol] = (await registerBuyers(t, 3)) as [Buyer, Buyer, Buyer];
  });
  afterAll(async () => {
    await t?.close();
    await closeClients();
  });

  const count = async (sql: string, userId: string) =>
    Number((await t.service.ctx.db.query<{ n: string }>(sql, [userId])).rows[0]!.n);
  const holdsOf = (userId: string) => count('select count(*) as n from holds where user_id = $1', userId);

  it('one account firing 20 holds gets its 5 and then 429s, and the refused ones claim nothing', async () => {
    const answers = await fire(20, 20, (i) => t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[i]!] }, alice.token));
    console.log('20 holds by one account (budget 5):', countStatuses(answers));
    expect(countStatuses(answers)).toEqual({ 201: 5, 429: 15 });
    for (const r of answers.filter((a) => a.status === 429)) {
      expectProblem(r, 429, 'RATE_LIMITED');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(await holdsOf(alice.userId)).toBe(5);
    const seatsHeld = await t.service.ctx.db.query<{ n: string }>(
      "select count(*) as n from show_seats where show_id = $1 and status <> 'available'", [showId]);
    expect(Number(seatsHeld.rows[0]!.n)).toBe(5);
    // Releasing is on the purchase path too: the spent budget refuses it.
    const held = answers.find((a) => a.status === 201)!;
    expectProblem(await t.http.delete(`/v1/holds/${held.body.hold_id as string}`, alice.token), 429, 'RATE_LIMITED');
  });

  it('the address budget counts every account behind it, but not the requests their own accounts refused', async () => {
    // Alice's 15 refusals did not spend the address's budget: 8 - 5 are left for Bob.
    const answers = await fire(20, 20, (i) => t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[20 + i]!] }, bob.token));
    console.log('20 holds by a second account on the same address (3 left of 8):', countStatuses(answers));
    expect(countStatuses(answers)).toEqual({ 201: 3, 429: 17 });
    expect(await holdsOf(bob.userId)).toBe(3);
  });

  it('caps new Idempotency-Keys: 50 bookings with new keys store 5 answers, the rest are 429 and stored nowhere', async () => {
    const carolsPhone = clientFrom(t.baseUrl, '127.0.0.2');
    const answers = await fire(50, 25, (i) => carolsPhone.post('/v1/bookings', { hold_id: `hold_missing_${i}`, payment_method: 'pm_card_visa' },
      carol.token, { 'idempotency-key': `flood-${i}` }));
    console.log('50 bookings with new keys (budget 5):', countStatuses(answers));
    // The holds never existed: 404, stored under the key like every other answer.
    expect(countStatuses(answers)).toEqual({ 404: 5, 429: 45 });
    expect(await count('select count(*) as n from idempotency_keys where user_id = $1', carol.userId)).toBe(5);
  });
});
