// Stored Idempotency-Key answers expire (IDEMPOTENCY_TTL_HOURS, 24 h like
// Stripe's): an older key counts as new, and the workers sweep old answers. Age
// is the database's: the test moves a key's created_at back rather than waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, expectProblem, expectStatus, holdSeats, newKey, paymentIntentsFor, postBooking, retrying, startService } from './helpers.js';

describe('Idempotency-Key expiry', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {}, workers: false });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 2, seatsPerRow: 10, per_user_limit: 20 })));
    [alice] = (await registerBuyers(t, 1)) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const age = (key: string, hours: number) => t.service.ctx.db.query(
    `update idempotency_keys set created_at = now() - make_interval(hours => $3) where user_id = $1 and key = $2`,
    [alice.userId, key, hours]);
  const keysLeft = async (keys: string[]) => (await t.service.ctx.db.query<{ key: string }>(
    'select key from idempotency_keys where user_id = $1 and key = any($2) order by key', [alice.userId, keys])).rows.map((r) => r.key);

  it('a key used 25 h ago is new again; at 23 h it still replays and refuses another body', async () => {
    const holdId = await holdSeats(t, showId, [seats[0]!], alice.token);
    const key = newKey('expiry');
    const declined = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, key);
    expectStatus(declined, 201);
    expect(declined.body.status).toBe('failed');

    await age(key, 23);
    const replay = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, key);
    expect(replay.text).toBe(declined.text);
    expectProblem(await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key), 422, 'IDEMPOTENCY_KEY_REUSED');

    await age(key, 25);
    const fresh = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key);
    expectStatus(fresh, 201);
    expect(fresh.body.status).toBe('confirmed');
    expect(fresh.body.booking_id).not.toBe(declined.body.booking_id);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(2);
    // The new answer is the one now stored and replayed.
    expect((await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key)).text).toBe(fresh.text);
  });

  it('the workers sweep answers older than the TTL, and nothing younger or still running', async () => {
    const keys = ['sweep-a', 'sweep-b', 'sweep-c', 'sweep-d'].map((k) => newKey(k));
    for (const key of keys.slice(0, 3)) {
      expectProblem(await postBooking(t, { hold_id: 'hold_none', payment_method: 'pm_card_visa' }, alice.token, key), 404, 'NOT_FOUND');
    }
    // A request still running (its lease alive) is never swept, however old its key.
    await t.service.ctx.db.query(
      `insert into idempotency_keys (user_id, key, fingerprint, state, lease_until, created_at)
       values ($1, $2, 'f', 'in_flight', now() + interval '1 minute', now() - interval '30 hours')`, [alice.userId, keys[3]]);
    await age(keys[0]!, 25);
    await age(keys[1]!, 48);
    await age(keys[2]!, 23);
    await t.service.workers.runOnce();
    expect(await keysLeft(keys)).toEqual([keys[2]!, keys[3]!].sort());
  });
});
