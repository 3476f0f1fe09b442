// The waiting room over HTTP against the real Redis and PostgreSQL: join, poll,
// admit, hold and book with the admission token; tokens that must not work; the
// operators' controls; sell-out; the fair opening as a buyer sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.js';
import { loadConfig } from '../../src/config.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { clientFrom, closeClients, redisPrefix } from '../support/clients.js';
import { expectProblem } from '../support/problems.js';
import { signUserToken, tokenSecret } from '../http/helpers.js';
import { newKey, postBooking, until } from '../bookings/helpers.js';
import { forge, joinAndAdmit, roomConfig, roomKeys, signRoomToken } from './helpers.js';

type Show = Awaited<ReturnType<typeof createShow>>;

const redis = redisPrefix();
let t: TestService;
let room: Show;
let plain: Show;
let buyers: Buyer[];
let keys: Awaited<ReturnType<typeof roomKeys>>;

beforeAll(async () => {
  t = await startTestService({ payments: {}, config: roomConfig(redis.prefix) });
  room = await createShow(t, { waiting_room: true, per_user_limit: 4 });
  plain = await createShow(t);
  buyers = await registerBuyers(t, 6);
  keys = await roomKeys(t.service.ctx.db);
}, 60_000);
afterAll(async () => {
  await closeClients();
  await t?.close();
  await redis.cleanUp();
});

const admitPath = (showId: string) => `/v1/shows/${showId}/queue/admit`;
const withAdmission = (token: string) => ({ 'admission-token': token });

describe('the waiting room over HTTP', () => {
  it('sells through the room: join, poll, admit, hold with Admission-Token, book: confirmed', async () => {
    const b = buyers[0]!;
    const status = await t.http.get(`/v1/shows/${room.showId}/queue`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ paused: false, sold_out: false, opened: expect.any(Boolean) });
    const { admission } = await joinAndAdmit(t.http, room.showId, b.token);

    const refused = await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['A1'] }, b.token);
    expectProblem(refused, 403, 'QUEUE_REQUIRED');
    const hold = await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['A1', 'A2'] }, b.token, withAdmission(admission));
    expect(hold.status, hold.text).toBe(201);

    // Without the token the booking is refused, and that refusal is not stored under the key.
    const k = newKey('room');
    const body = { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' };
    expectProblem(await postBooking(t, body, b.token, k), 403, 'QUEUE_REQUIRED');
    const booked = await t.http.post('/v1/bookings', body, b.token, { 'idempotency-key': k, ...withAdmission(admission) });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.status).toBe('confirmed');

    // A buyer who loses a seat race keeps the admission: a 409, then another hold with the same token.
    const lost = await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['A1'] }, b.token, withAdmission(admission));
    expectProblem(lost, 409, 'SEAT_UNAVAILABLE');
    const again = await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['A3'] }, b.token, withAdmission(admission));
    expect(again.status, again.text).toBe(201);
  });

  it('keeps one place per account when it joins from three clients at once', async () => {
    const b = buyers[1]!;
    const clients = ['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((a) => clientFrom(t.baseUrl, a));
    const answers = await Promise.all(clients.map((c) => c.post(`/v1/shows/${room.showId}/queue`, {}, b.token)));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    expect(new Set(answers.map((a) => a.body.position)).size).toBe(1);
    const later = await t.http.post(`/v1/shows/${room.showId}/queue`, {}, b.token);
    expect(later.body.position).toBe(answers[0]!.body.position);
  });

  it('gives 500 accounts joining at once 500 unique positions', async () => {
    const userKey = await tokenSecret(t.service.ctx.db);
    const show = await createShow(t, { waiting_room: true });
    // Joining reads no account row: tokens of accounts that only the token names will do.
    const tokens = await Promise.all(Array.from({ length: 500 }, (_, i) => signUserToken(userKey, { sub: `usr_join_${i}_${randomBytes(4).toString('hex')}` })));
    const answers = await Promise.all(tokens.map((tok) => t.http.post(`/v1/shows/${show.showId}/queue`, {}, tok)));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const positions = answers.map((a) => a.body.position as number);
    expect(new Set(positions).size).toBe(500);
    expect(Math.max(...positions)).toBe(500);
  });

  it('refuses forged, expired, other-user and other-show queue tokens on admit (400 TOKEN_INVALID)', async () => {
    const [b, c] = [buyers[2]!, buyers[3]!];
    const other = await createShow(t, { waiting_room: true });
    const mine = (await t.http.post(`/v1/shows/${room.showId}/queue`, {}, b.token)).body.queue_token as string;
    const otherShow = (await t.http.post(`/v1/shows/${other.showId}/queue`, {}, b.token)).body.queue_token as string;
    const entry = JSON.parse(Buffer.from(mine.split('.')[1]!, 'base64url').toString()).entry as string;
    const expired = await signRoomToken(keys, { kind: 'queue', sub: b.userId, claims: { show: room.showId, entry }, exp: Math.floor(Date.now() / 1000) - 10 });
    const admissionAsQueue = await signRoomToken(keys, { kind: 'admission', sub: b.userId, claims: { show: room.showId, pos: 1, entry } });
    const bare = await signRoomToken(keys, { kind: 'queue', sub: b.userId, claims: { show: room.showId, entry }, bare: true });
    const admitted = async () => (await t.http.get(`/v1/admin/shows/${room.showId}/queue`, t.adminToken)).body.admitted as number;
    const admittedBefore = await admitted();
    for (const [what, token, as] of [
      ['forged', forge(mine), b], ['expired', expired, b], ["someone else's", mine, c], ['of another show', otherShow, b],
      ['an admission token', admissionAsQueue, b], ['without iss and aud', bare, b], ['junk', 'not.a.token', b],
    ] as const) {
      const r = await t.http.post(admitPath(room.showId), { queue_token: token }, as.token);
      // Named, so that a failure says which token got through.
      expect({ token: what, status: r.status, code: r.body?.code, admission: r.body?.admission_token }).toEqual({ token: what, status: 400, code: 'TOKEN_INVALID', admission: undefined });
      expectProblem(r, 400, 'TOKEN_INVALID');
      expect(await admitted(), `the ${what} token admitted nobody`).toBe(admittedBefore);
    }
    // The refusals cost the holder of the real token nothing: it still admits, once.
    const own = await until('b\'s own token to admit', async () => {
      const r = await t.http.post(admitPath(room.showId), { queue_token: mine }, b.token);
      if (r.status !== 403) return r;
      expectProblem(r, 403, 'NOT_YET_ADMITTED');
      return null;
    }, 15_000, 50);
    expect(own.status, own.text).toBe(200);
    expect(typeof own.body.admission_token).toBe('string');
    expect(await admitted()).toBe(admittedBefore + 1);
  });

  it('refuses forged, expired, other-user and other-show admission tokens on holds and bookings (403 QUEUE_REQUIRED)', async () => {
    const [b, c] = [buyers[4]!, buyers[5]!];
    const other = await createShow(t, { waiting_room: true });
    const { admission } = await joinAndAdmit(t.http, room.showId, b.token);
    const { admission: otherShow } = await joinAndAdmit(t.http, other.showId, b.token);
    const expired = await signRoomToken(keys, { kind: 'admission', sub: b.userId, claims: { show: room.showId, pos: 1 }, exp: Math.floor(Date.now() / 1000) - 10 });
    const queueAsAdmission = (await t.http.post(`/v1/shows/${room.showId}/queue`, {}, b.token)).body.queue_token as string;
    const bare = await signRoomToken(keys, { kind: 'admission', sub: b.userId, claims: { show: room.showId, pos: 1 }, bare: true });
    const cases = [['forged', forge(admission), b], ['expired', expired, b], ["someone else's", admission, c], ['of another show', otherShow, b], ['a queue token', queueAsAdmission, b],
      ['without iss and aud', bare, b]] as const;
    for (const [, token, as] of cases) {
      expectProblem(await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['B1'] }, as.token, withAdmission(token)), 403, 'QUEUE_REQUIRED');
    }
    // Bookings: the hold's show is only known in the database, so the token's show goes into the statement.
    const hold = await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['B1'] }, b.token, withAdmission(admission));
    expect(hold.status, hold.text).toBe(201);
    const body = { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' };
    for (const [, token] of cases.filter(([, , as]) => as === b)) {
      expectProblem(await t.http.post('/v1/bookings', body, b.token, { 'idempotency-key': newKey('bad'), ...withAdmission(token) }), 403, 'QUEUE_REQUIRED');
    }
    // Someone else's hold with their own valid admission stays what it was: not their active hold.
    const { admission: ofC } = await joinAndAdmit(t.http, room.showId, c.token);
    expectProblem(await t.http.post('/v1/bookings', body, c.token, { 'idempotency-key': newKey('c'), ...withAdmission(ofC) }), 409, 'HOLD_EXPIRED');
    const paid = await t.http.post('/v1/bookings', body, b.token, { 'idempotency-key': newKey('ok'), ...withAdmission(admission) });
    expect(paid.status, paid.text).toBe(201);
  });

  it('answers 409 NO_WAITING_ROOM on the queue routes of a show without one, and 404 for no show', async () => {
    const b = buyers[0]!;
    expectProblem(await t.http.post(`/v1/shows/${plain.showId}/queue`, {}, b.token), 409, 'NO_WAITING_ROOM');
    expectProblem(await t.http.get(`/v1/shows/${plain.showId}/queue`), 409, 'NO_WAITING_ROOM');
    expectProblem(await t.http.post(admitPath(plain.showId), { queue_token: 'x.y.z' }, b.token), 409, 'NO_WAITING_ROOM');
    expectProblem(await t.http.get('/v1/shows/show_000000000000000000000000/queue'), 404, 'NOT_FOUND');
    // A show without a room needs no token.
    expect((await t.http.post(`/v1/shows/${plain.showId}/holds`, { seats: ['A1'] }, b.token)).status).toBe(201);
  });

  it('lets operators pause, cap and resume, records who and when, and says NOT_YET_ADMITTED meanwhile', async () => {
    const show = await createShow(t, { waiting_room: true });
    const admin = t.adminToken;
    const paused = await t.http.post(`/v1/shows/${show.showId}/queue`.replace('/v1/shows', '/v1/admin/shows'), { action: 'pause', max_admit_per_minute: 30 }, admin);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, max_admit_per_minute: 30, admit_rate_per_minute: 0 });
    const b = buyers[1]!;
    const joined = await t.http.post(`/v1/shows/${show.showId}/queue`, {}, b.token);
    expect(joined.body.position).toBe(1);
    // The join says when to first ask: while paused, as a NOT_YET_ADMITTED answer would (10 s).
    expect(joined.body.retry_after_seconds).toBe(10);
    await new Promise((r) => setTimeout(r, 300));
    const status = await t.http.get(`/v1/shows/${show.showId}/queue`);
    expect(status.body).toMatchObject({ serving: 0, waiting: 1, paused: true, admit_rate_per_minute: 0 });
    const r = await t.http.post(admitPath(show.showId), { queue_token: joined.body.queue_token }, b.token);
    expectProblem(r, 403, 'NOT_YET_ADMITTED');
    // Paused: ask again in 10 s, in the body and in Retry-After alike (what the join said).
    expect(r.body).toMatchObject({ position: 1, serving: 0, paused: true, retry_after_seconds: 10, retry_after: 10 });
    expect(r.headers['retry-after']).toBe('10');

    const resumed = await t.http.post(`/v1/admin/shows/${show.showId}/queue`, { action: 'resume', max_admit_per_minute: null }, admin);
    expect(resumed.body).toMatchObject({ paused: false, max_admit_per_minute: null });
    await until('admitted after resume', async () => (await t.http.post(admitPath(show.showId), { queue_token: joined.body.queue_token }, b.token)).status === 200, 5000, 50);
    const view = await t.http.get(`/v1/admin/shows/${show.showId}/queue`, admin);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ serving: 1, waiting: 0, admitted: 1, paused: false, max_admit_per_minute: null });
    expect(view.body.changes.map((c: { change: unknown }) => c.change)).toEqual([
      { action: 'resume', max_admit_per_minute: null }, { action: 'pause', max_admit_per_minute: 30 },
    ]);
    const adminId = (await t.http.post('/v1/sessions', { email: 'admin@boxoffice.test', password: 'admin-password-1' })).body.user_id;
    expect(view.body.changes[0]).toMatchObject({ by: adminId, at: expect.any(String) });
    expectProblem(await t.http.get(`/v1/admin/shows/${show.showId}/queue`, b.token), 403, 'FORBIDDEN');
  });

  it('stops admitting at sell-out and says so', async () => {
    const show = await createShow(t, { waiting_room: true, rows: 1, seatsPerRow: 2 });
    const [b, c] = [buyers[2]!, buyers[3]!];
    const { admission } = await joinAndAdmit(t.http, show.showId, b.token);
    const hold = await t.http.post(`/v1/shows/${show.showId}/holds`, { seats: ['A1', 'A2'] }, b.token, withAdmission(admission));
    expect(hold.status, hold.text).toBe(201);
    const paid = await t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, b.token, { 'idempotency-key': newKey('so'), ...withAdmission(admission) });
    expect(paid.body.status).toBe('confirmed');
    await until('sold_out', async () => (await t.http.get(`/v1/shows/${show.showId}/queue`)).body.sold_out === true, 10_000, 100);
    const joined = await t.http.post(`/v1/shows/${show.showId}/queue`, {}, c.token);
    const r = await t.http.post(admitPath(show.showId), { queue_token: joined.body.queue_token }, c.token);
    expectProblem(r, 403, 'NOT_YET_ADMITTED');
    expect(r.body.sold_out).toBe(true);
  });

  it('draws the places of everyone who joined before the opening, and publishes the seed', async () => {
    const show = await createShow(t, { waiting_room: true, sale_opens_at: new Date(Date.now() + 2500).toISOString() });
    const early = buyers.slice(0, 4);
    const joins = await Promise.all(early.map((b) => t.http.post(`/v1/shows/${show.showId}/queue`, {}, b.token)));
    for (const j of joins) expect(j.body).toMatchObject({ position: null, pre_queue: true });
    // First ask at the opening, 2.5 s away.
    for (const j of joins) expect(j.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
    for (const j of joins) expect(j.body.retry_after_seconds).toBeLessThanOrEqual(3);
    const before = await t.http.get(`/v1/shows/${show.showId}/queue`);
    expect(before.body).toMatchObject({ opened: false, waiting: 4, serving: 0 });
    expect(before.body.opening).toBeUndefined();
    const r = await t.http.post(admitPath(show.showId), { queue_token: joins[0]!.body.queue_token }, early[0]!.token);
    expectProblem(r, 403, 'NOT_YET_ADMITTED');
    expect(r.body.position).toBeNull();
    const opened = await until('the opening', async () => {
      const s = await t.http.get(`/v1/shows/${show.showId}/queue`);
      return s.body.opening ? s.body : null;
    }, 10_000, 100);
    expect(opened.opening).toMatchObject({ seed: expect.stringMatching(/^[0-9a-f]{32}$/), pre_queue: 4 });
    const positions = await until('drawn places', async () => {
      const again = await Promise.all(early.map((b) => t.http.post(`/v1/shows/${show.showId}/queue`, {}, b.token)));
      return again.every((a) => a.body.position !== null) ? again.map((a) => a.body.position as number) : null;
    }, 5000, 50);
    expect([...positions].sort()).toEqual([1, 2, 3, 4]);
    // Recomputed from the seed and the entries' ids (each buyer's id is in its own queue token).
    const { openingOrder } = await import('../../src/waiting-room/fairOpening.js');
    const entries = joins.map((j) => JSON.parse(Buffer.from((j.body.queue_token as string).split('.')[1]!, 'base64url').toString()).entry as string);
    const order = openingOrder(opened.opening.seed, entries);
    entries.forEach((e, i) => expect(positions[i]).toBe(order.indexOf(e) + 1));
  });

  it('shows joins, admissions, queue depth, no-shows and the admission rate in /metrics', async () => {
    const m = (await t.http.get('/metrics')).text;
    expect(m).toMatch(/^boxoffice_queue_joins_total [1-9]\d*$/m);
    expect(m).toMatch(/^boxoffice_queue_admits_total\{result="admitted"\} [1-9]\d*$/m);
    expect(m).toMatch(new RegExp(`^boxoffice_queue_serving\\{show="${room.showId}"\\} [1-9]\\d*$`, 'm'));
    expect(m).toMatch(new RegExp(`^boxoffice_queue_waiting\\{show="${room.showId}"\\} \\d+$`, 'm'));
    expect(m).toMatch(new RegExp(`^boxoffice_queue_no_shows\\{show="${room.showId}"\\} \\d+$`, 'm'));
    expect(m).toMatch(/^boxoffice_admission_rate_per_minute \d+$/m);
    expect(m).toMatch(/^boxoffice_admission_controller_input\{input="hold_latency_ms"\} /m);
    expect(m).toMatch(/^boxoffice_purchase_limit\{path="hold"\} \d+$/m);
  });
});

describe('queue joins are rate-limited per account', () => {
  const prefix = redisPrefix();
  let limited: TestService;
  afterAll(async () => {
    await limited?.close();
    await prefix.cleanUp();
  });

  it('answers 429 RATE_LIMITED with Retry-After past the budget', async () => {
    const base = roomConfig(prefix.prefix);
    limited = await startTestService({ config: { ...base, rateLimitExempt: [], rateLimitPrefix: prefix.prefix,
      rateLimits: { ...loadConfig({}).rateLimits, queueJoinPerAccount: { points: 3, seconds: 60 } } } });
    const show = await createShow(limited, { waiting_room: true });
    const [b] = await registerBuyers(limited, 1);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await limited.http.post(`/v1/shows/${show.showId}/queue`, {}, b!.token));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([201, 201, 201]);
    expectProblem(answers[3]!, 429, 'RATE_LIMITED');
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
