// The Idempotency-Key contract of POST /v1/bookings (API.md "Bookings and payment",
// DESIGN.md invariant 5): a repeat with the same key and body answers exactly what
// the first answered and never charges again; a different body is 422; a repeat
// while the first still runs is 409 IN_FLIGHT; keys are scoped to the caller.
// "Charged" is judged by the simulator's own books, not by what the service says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { HttpAnswer } from '../support/http.js';
import { createHash } from 'node:crypto';
import { shiftClock } from '../../src/db/clock.js';
import { canonicalJson } from '../../src/domain/ids.js';
import {
  closeService, expectProblem, expectStatus, holdSeats, newKey, paymentIntentsFor, postBooking, retrying, sleep, startService,
} from './helpers.js';

describe('POST /v1/bookings Idempotency-Key', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;
  let bob: Buyer;
  let next = 0;
  const freshSeat = () => seats[next++]!;

  beforeAll(async () => {
    // pm_card_slow takes ~3 s: the provider wait must outlast it.
    t = await startService({ payments: {}, config: { paymentTimeoutMs: 6000 } });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 4, seatsPerRow: 20, per_user_limit: 40 })));
    [alice, bob] = (await retrying('registering buyers', () => registerBuyers(t, 2))) as [Buyer, Buyer];
  });
  afterAll(async () => { await closeService(t); });

  /** The same status, content type and body (the same JSON, and in fact the same bytes). */
  function expectSameAnswer(again: HttpAnswer, first: HttpAnswer) {
    expect(again.status, again.text).toBe(first.status);
    expect(String(again.headers['content-type'])).toBe(String(first.headers['content-type']));
    expect(again.body, again.text).toEqual(first.body);
    expect(again.text).toBe(first.text);
  }

  async function bookingsOfHold(holdId: string): Promise<number> {
    const r = await t.service.ctx.db.query<{ n: string }>('select count(*) as n from bookings where hold_id = $1', [holdId]);
    return Number(r.rows[0]!.n);
  }

  it('replays a confirmed booking exactly and charges once', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat(), freshSeat()], alice.token);
    const key = newKey('confirmed');
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    const first = await postBooking(t, body, alice.token, key);
    expectStatus(first, 201);
    expect(first.body).toMatchObject({ hold_id: holdId, show_id: showId, status: 'confirmed', amount: 2000, currency: 'EUR' });
    for (let i = 0; i < 3; i++) expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    // Body key order does not make it a different body.
    expectSameAnswer(await postBooking(t, { payment_method: 'pm_card_visa', hold_id: holdId }, alice.token, key), first);
    expect(paymentIntentsFor(t, { bookingId: first.body.booking_id })).toHaveLength(1);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
    expect(await bookingsOfHold(holdId)).toBe(1);
  });

  it('replays a declined (failed) booking exactly, even after the hold was paid with another key', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const key = newKey('declined');
    const body = { hold_id: holdId, payment_method: 'pm_card_declined' };
    const first = await postBooking(t, body, alice.token, key);
    expectStatus(first, 201);
    expect(first.body.status).toBe('failed');
    expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);

    // A new key may retry with another method; the old key still answers what it answered.
    const retry = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, newKey('declined-retry'));
    expectStatus(retry, 201);
    expect(retry.body.status).toBe('confirmed');
    expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(2); // one per key, never more
    expect(paymentIntentsFor(t, { bookingId: first.body.booking_id })).toHaveLength(1);
  });

  it('replays a 409 HOLD_EXPIRED exactly and charges nothing', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    expect((await t.http.delete(`/v1/holds/${holdId}`, alice.token)).status).toBe(204);
    const key = newKey('expired');
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    const first = await postBooking(t, body, alice.token, key);
    expectProblem(first, 409, 'HOLD_EXPIRED');
    expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(0);
    expect(await bookingsOfHold(holdId)).toBe(0);
  });

  it('replays a 400 VALIDATION_FAILED exactly, and remembers the key', async () => {
    const key = newKey('invalid');
    const body = { hold_id: 42, payment_method: 'pm_card_visa' };
    const first = await postBooking(t, body, alice.token, key);
    expectProblem(first, 400, 'VALIDATION_FAILED');
    expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    // The key is stored with that body: another body under it is a reuse.
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    expectProblem(await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(0);
  });

  it('stores a 400 for malformed JSON under its key too: a different body with that key afterwards is 422, not a charge', async () => {
    // API.md: "every answer except 401, 5xx and the IDEMPOTENCY_* ones is stored and replayed".
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const key = newKey('malformed');
    const malformed = () => t.http.send('POST', '/v1/bookings', {
      raw: `{"hold_id": "${holdId}", "payment_method": `, token: alice.token, headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    const first = await malformed();
    expectProblem(first, 400, 'VALIDATION_FAILED');
    expectSameAnswer(await malformed(), first);
    const valid = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key);
    expectProblem(valid, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(0);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with a different body, and charges nothing more', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const otherHold = await holdSeats(t, showId, [freshSeat()], alice.token);
    const key = newKey('reused');
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    const first = await postBooking(t, body, alice.token, key);
    expectStatus(first, 201);
    expectProblem(await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectProblem(await postBooking(t, { hold_id: otherHold, payment_method: 'pm_card_visa' }, alice.token, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
    expect(paymentIntentsFor(t, { holdId: otherHold })).toHaveLength(0);
    expect((await t.http.get(`/v1/holds/${otherHold}`, alice.token)).body.status).toBe('active');
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_FLIGHT with Retry-After while the first request runs, then replays it', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const key = newKey('inflight');
    const body = { hold_id: holdId, payment_method: 'pm_card_slow' };
    let firstDoneAt = 0;
    const firstP = postBooking(t, body, alice.token, key).then((r) => { firstDoneAt = Date.now(); return r; });
    await sleep(300);
    const repeat = await postBooking(t, body, alice.token, key);
    const repeatAt = Date.now();
    expectProblem(repeat, 409, 'IDEMPOTENCY_KEY_IN_FLIGHT');
    // A wait of at least a second (0 would invite a retry loop), the same in the body and the header.
    expect(repeat.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(repeat.headers['retry-after'], 'Retry-After header').toBe(String(repeat.body.retry_after));
    const first = await firstP;
    expect(repeatAt, 'the in-flight answer came before the first request finished').toBeLessThan(firstDoneAt);
    expectStatus(first, 201);
    expect(first.body.status).toBe('confirmed');
    expectSameAnswer(await postBooking(t, body, alice.token, key), first);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
    expect(await bookingsOfHold(holdId)).toBe(1);
  });

  it('takes over the key of a request whose instance died: before its booking it books, after it answers with that booking', async () => {
    /** The key as a request that died leaves it: in flight, its lease run out, noting its booking if it made one. */
    const died = (key: string, body: object, bookingId: string | null) => t.service.ctx.db.query(
      `insert into idempotency_keys (user_id, key, fingerprint, state, lease_until, booking_id)
       values ($1, $2, $3, 'in_flight', now() - interval '1 second', $4)`,
      [alice.userId, key, createHash('sha256').update(canonicalJson(body)).digest('hex'), bookingId]);

    // Died before entering payment: a different body is still refused, the same body books.
    const early = await holdSeats(t, showId, [freshSeat()], alice.token);
    const body = { hold_id: early, payment_method: 'pm_card_visa' };
    const key = newKey('died-early');
    await died(key, body, null);
    expectProblem(await postBooking(t, { ...body, payment_method: 'pm_card_chargeDeclined' }, alice.token, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    const booked = await postBooking(t, body, alice.token, key);
    expectStatus(booked, 201);
    expect(booked.body).toMatchObject({ hold_id: early, status: 'confirmed' });
    expectSameAnswer(await postBooking(t, body, alice.token, key), booked);
    expect(paymentIntentsFor(t, { holdId: early })).toHaveLength(1);

    // Died after its booking: the repeat answers with that booking and charges nothing more.
    const late = await holdSeats(t, showId, [freshSeat()], alice.token);
    const lateBody = { hold_id: late, payment_method: 'pm_card_visa' };
    const made = await postBooking(t, lateBody, alice.token, newKey('made'));
    expect(made.body.status).toBe('confirmed');
    const lateKey = newKey('died-late');
    await died(lateKey, lateBody, made.body.booking_id);
    const answered = await postBooking(t, lateBody, alice.token, lateKey);
    expectStatus(answered, 201);
    expect(answered.body).toEqual(made.body);
    expectSameAnswer(await postBooking(t, lateBody, alice.token, lateKey), answered);
    expect(paymentIntentsFor(t, { holdId: late })).toHaveLength(1);
    expect(await bookingsOfHold(late)).toBe(1);
  });

  it('answers 400 IDEMPOTENCY_KEY_MISSING without a key, with an empty one and with one of 256 characters; 255 is fine', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    expectProblem(await postBooking(t, body, alice.token, null), 400, 'IDEMPOTENCY_KEY_MISSING');
    expectProblem(await postBooking(t, body, alice.token, ''), 400, 'IDEMPOTENCY_KEY_MISSING');
    expectProblem(await postBooking(t, body, alice.token, 'x'.repeat(256)), 400, 'IDEMPOTENCY_KEY_MISSING');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(0);
    expect((await t.http.get(`/v1/holds/${holdId}`, alice.token)).body.status).toBe('active');
    const ok = await postBooking(t, body, alice.token, 'y'.repeat(255));
    expectStatus(ok, 201);
    expect(ok.body.status).toBe('confirmed');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
  });

  it('scopes keys to the caller: another user with the same key and body gets their own answer', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const key = newKey('scoped');
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    const mine = await postBooking(t, body, alice.token, key);
    expectStatus(mine, 201);
    expect(mine.body.status).toBe('confirmed');
    const theirs = await postBooking(t, body, bob.token, key);
    expectProblem(theirs, 409, 'HOLD_EXPIRED');
    expectSameAnswer(await postBooking(t, body, bob.token, key), theirs);
    expectSameAnswer(await postBooking(t, body, alice.token, key), mine);
    // Bob's key is his own: a different body under it is a reuse for him, Alice's is untouched.
    expectProblem(await postBooking(t, { ...body, payment_method: 'pm_card_declined' }, bob.token, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
  });

  it('does not store a 401: the same key with a token afterwards runs the request', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const key = newKey('unauth');
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    expectProblem(await postBooking(t, body, undefined, key), 401, 'UNAUTHENTICATED');
    expectProblem(await postBooking(t, body, 'not-a-token', key), 401, 'UNAUTHENTICATED');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(0);
    const r = await postBooking(t, body, alice.token, key);
    expectStatus(r, 201);
    expect(r.body.status).toBe('confirmed');
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
  });

  it('20 parallel identical requests with one key charge exactly once; each answer is the one 201 body or IN_FLIGHT', async () => {
    const holdId = await holdSeats(t, showId, [freshSeat(), freshSeat()], alice.token);
    const key = newKey('parallel');
    const body = { hold_id: holdId, payment_method: 'pm_card_visa' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => postBooking(t, body, alice.token, key)));
    const created = answers.filter((a) => a.status === 201);
    const others = answers.filter((a) => a.status !== 201);
    expect(created.length, answers.map((a) => `${a.status} ${a.body?.code ?? a.body?.status}`).join(', ')).toBeGreaterThanOrEqual(1);
    for (const c of created) expect(c.body).toEqual(created[0]!.body);
    for (const o of others) {
      expectProblem(o, 409, 'IDEMPOTENCY_KEY_IN_FLIGHT');
      expect(o.body.retry_after).toBeGreaterThanOrEqual(1);
      expect(o.headers['retry-after']).toBe(String(o.body.retry_after));
    }
    expect(created[0]!.body.status).toBe('confirmed');
    expectSameAnswer(await postBooking(t, body, alice.token, key), created[0]!);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
    expect(await bookingsOfHold(holdId)).toBe(1);
  });

  it('the first payment attempt extends the hold once (to now + ttl); a retry after a decline does not', async () => {
    const db = t.service.ctx.db;
    const dbNow = async () => (await db.query<{ now: Date }>('select bo_now() as now')).rows[0]!.now.getTime();
    const ttl = 600;
    const holdId = await holdSeats(t, showId, [freshSeat()], alice.token);
    const expiresAt = async () => {
      const r = await t.http.get(`/v1/holds/${holdId}`, alice.token);
      expectStatus(r, 200);
      return { status: r.body.status as string, at: Date.parse(r.body.expires_at) };
    };
    const created = await expiresAt();
    let shifted = 0;
    try {
      // 5 minutes later (database clock) the first attempt, declined: expiry moves to now + ttl.
      await shiftClock(db, 300); shifted += 300;
      const declined = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey('ext-1'));
      expect(declined.body.status).toBe('failed');
      const now1 = await dbNow();
      const afterFirst = await expiresAt();
      expect(afterFirst.status).toBe('active');
      expect(Math.abs(afterFirst.at - (now1 + ttl * 1000)), `expires_at ${new Date(afterFirst.at).toISOString()} vs now+ttl ${new Date(now1 + ttl * 1000).toISOString()}`).toBeLessThan(10_000);
      expect(afterFirst.at - created.at).toBeGreaterThan(290_000);

      // Another 2 minutes later, a retry (declined again) and then a successful one: no further extension.
      await shiftClock(db, 120); shifted += 120;
      const again = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey('ext-2'));
      expect(again.body.status).toBe('failed');
      const afterRetry = await expiresAt();
      expect(afterRetry.status).toBe('active');
      expect(afterRetry.at).toBe(afterFirst.at);
      const paid = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, newKey('ext-3'));
      expect(paid.body.status).toBe('confirmed');
      const row = await db.query<{ expires_at: Date }>('select expires_at from holds where id = $1', [holdId]);
      expect(row.rows[0]!.expires_at.getTime()).toBe(afterFirst.at);
    } finally {
      if (shifted) await shiftClock(db, -shifted);
    }
  });
});
