// Shards by show (docs/scale-out.md) on the real PostgreSQL server: a control
// database and two shard databases, shard b behind a proxy the test can blackhole.
// Placement (pinned, least demand), a show's rows only on its shard, holds,
// bookings, payments, webhooks and tickets on each shard, ids that route, a changed
// placement followed without a restart, and a shard that does not answer failing
// only its own shows, fast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, endPool, type TestDatabase } from '../support/database.js';
import { start as startProxy, type BlackholeProxy } from '../support/blackholeProxy.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, expectStatus, newKey, retrying, startService, until, waitForTickets } from '../bookings/helpers.js';
import type { TestService } from '../support/service.js';
import { showOfId } from '../../src/domain/ids.js';
import { adminCommand } from '../../src/cli/admin.js';

let a: TestDatabase;
let b: TestDatabase;
let proxy: BlackholeProxy;
let t: TestService;
let onA: pg.Pool;
let onB: pg.Pool;
let buyer: Buyer;
let hallId: string;
let eventId: string;

const count = async (pool: pg.Pool, sql: string, params: unknown[]) => Number((await pool.query<{ n: string }>(sql, params)).rows[0]!.n);

async function newShow(o: { shard?: string; expected_demand?: number; starts_in_days?: number } = {}): Promise<string> {
  const r = await t.http.post('/v1/admin/shows', {
    event_id: eventId, hall_id: hallId, currency: 'EUR', price_tiers: { standard: 1000 },
    starts_at: new Date(Date.now() + (o.starts_in_days ?? 7) * 86_400_000).toISOString(),
    ...(o.shard ? { shard: o.shard } : {}), ...(o.expected_demand !== undefined ? { expected_demand: o.expected_demand } : {}),
  }, t.adminToken);
  expectStatus(r, 201);
  return r.body.id as string;
}

const hold = (showId: string, seats: string[], token = buyer.token) => t.http.post(`/v1/shows/${showId}/holds`, { seats }, token);

beforeAll(async () => {
  [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  proxy = await startProxy(5432);
  const bUrl = new URL(b.url);
  bUrl.port = String(proxy.port);
  t = await startService({
    payments: {},
    config: {
      shards: [{ name: 'a', url: a.url }, { name: 'b', url: bUrl.toString() }],
      placementRefreshMs: 100,
      // The production bounds, under which a shard that does not answer is a 503 within 2 s.
      dbBounds: { connectMs: 1000, queueMs: 3000, statementMs: 1000, backgroundStatementMs: 5000 },
    },
  });
  onA = new pg.Pool({ connectionString: a.url, max: 2 });
  onB = new pg.Pool({ connectionString: b.url, max: 2 });
  const venue = await t.http.post('/v1/admin/venues', { name: 'Shard Hall', city: 'Splitville' }, t.adminToken);
  const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'One', layout: { rows: [{ row: 'A', seats: 10, tier: 'standard' }, { row: 'B', seats: 10, tier: 'standard' }] } }, t.adminToken);
  const event = await t.http.post('/v1/admin/events', { title: 'Sharded Film' }, t.adminToken);
  hallId = hall.body.id;
  eventId = event.body.id;
  [buyer] = await registerBuyers(t, 1) as [Buyer];
}, 180_000);

afterAll(async () => {
  await proxy?.mode('pass');
  await closeService(t);
  await Promise.all([onA && endPool(onA), onB && endPool(onB)]);
  await proxy?.close();
  await Promise.all([a?.drop(), b?.drop()]);
}, 120_000);

describe('shards by show', () => {
  let onShardA: string;
  let onShardB: string;

  it('places a pinned show on its shard and a new one on the shard whose shows not yet started expect the least demand', async () => {
    onShardB = await newShow({ shard: 'b', expected_demand: 100 });
    onShardA = await newShow({ expected_demand: 10 });
    const third = await newShow({ expected_demand: 50 }); // a: 10 < b: 100
    // A show already started weighs nothing: b's started show does not make b heavier.
    await newShow({ shard: 'b', expected_demand: 1000, starts_in_days: -1 });
    const fourth = await newShow({ expected_demand: 1 }); // a: 60 < b: 100
    for (const [id, shard] of [[onShardB, 'b'], [onShardA, 'a'], [third, 'a'], [fourth, 'a']] as const) {
      const p = await t.http.get(`/v1/admin/shows/${id}/placement`, t.adminToken);
      expectStatus(p, 200);
      expect(p.body).toEqual({ show_id: id, shard, epoch: 1 });
    }
    const shards = await t.http.get('/v1/admin/shards', t.adminToken);
    expectStatus(shards, 200);
    expect(shards.body).toEqual({ shards: [
      { name: 'a', up: true, shows: 3, expected_demand: 61 },
      { name: 'b', up: true, shows: 2, expected_demand: 100 },
    ] });
    const refused = await t.http.post('/v1/admin/shows', { event_id: eventId, hall_id: hallId, currency: 'EUR', price_tiers: { standard: 1000 }, starts_at: new Date(Date.now() + 86_400_000).toISOString(), shard: 'zz' }, t.adminToken);
    expect(refused.status).toBe(400);
    expect((await t.http.get(`/v1/shows/${onShardA}`)).body.expected_demand).toBe(10);
  });

  it("keeps a show's rows on its shard only: its copy of the show row and its 20 seats", async () => {
    expect(await count(onA, 'select count(*) as n from show_seats where show_id = $1', [onShardA])).toBe(20);
    expect(await count(onB, 'select count(*) as n from show_seats where show_id = $1', [onShardA])).toBe(0);
    expect(await count(onB, 'select count(*) as n from show_seats where show_id = $1', [onShardB])).toBe(20);
    expect(await count(onA, 'select count(*) as n from shows where id = $1', [onShardB])).toBe(0);
    expect(await count(onB, 'select count(*) as n from shows where id = $1', [onShardB])).toBe(1);
    const control = t.service.ctx.db;
    expect(Number((await control.query<{ n: number }>('select count(*) as n from show_seats')).rows[0]!.n)).toBe(0);
  });

  it('holds, pays, issues tickets and takes webhooks on each shard; ids name their show; my bookings read both', async () => {
    const bookings: Record<string, { booking_id: string; hold_id: string }> = {};
    for (const [showId, pool] of [[onShardA, onA], [onShardB, onB]] as const) {
      const h = await hold(showId, ['A1', 'A2']);
      expectStatus(h, 201);
      expect(showOfId(h.body.hold_id)).toBe(showId);
      const paid = await t.http.post('/v1/bookings', { hold_id: h.body.hold_id, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': newKey('shard') });
      expectStatus(paid, 201);
      expect(paid.body.status).toBe('confirmed');
      expect(showOfId(paid.body.booking_id)).toBe(showId);
      bookings[showId] = paid.body;
      expect(await count(pool, 'select count(*) as n from holds where id = $1', [h.body.hold_id])).toBe(1);
      expect(await count(pool, 'select count(*) as n from payment_attempts where booking_id = $1', [paid.body.booking_id])).toBe(1);
      const tickets = await waitForTickets(t, paid.body.booking_id, 2, buyer.token);
      expect(tickets.map((k) => showOfId(k.ticket_id))).toEqual([showId, showId]);
      const pi = t.simulator!.ctx.store.paymentIntents.all().find((p) => p.metadata.booking_id === paid.body.booking_id);
      expect(pi?.metadata.show_id).toBe(showId);
      // The simulator's payment_intent.succeeded webhook is recorded on the show's own shard.
      await until('the webhook on its shard', async () => (await count(pool, "select count(*) as n from webhook_events where payload->'data'->'object'->'metadata'->>'booking_id' = $1", [paid.body.booking_id])) > 0);
      // A check-in at the gate finds the ticket by the show its signed code names.
      const checked = await t.http.post('/v1/checkin', { code: tickets[0]!.code }, t.adminToken);
      expectStatus(checked, 200);
    }
    const mine = await t.http.get('/v1/bookings', buyer.token);
    expectStatus(mine, 200);
    expect(mine.body.bookings.map((x: { booking_id: string }) => x.booking_id).sort()).toEqual(Object.values(bookings).map((x) => x.booking_id).sort());
    const one = await t.http.get(`/v1/bookings/${bookings[onShardB]!.booking_id}`, buyer.token);
    expectStatus(one, 200);
    // Stats of each show come from its shard.
    const stats = await t.http.get(`/v1/admin/shows/${onShardB}/stats`, t.adminToken);
    expectStatus(stats, 200);
    expect(stats.body.seats).toEqual({ available: 18, held: 0, booked: 2 });
  });

  it('follows a changed placement without a restart: holds and the map go to the new shard', async () => {
    const show = await newShow({ shard: 'a' });
    expectStatus(await t.http.get(`/v1/shows/${show}/seats`), 200);
    // What a move does, by hand: the show's rows copied to b, gone from a, the placement's epoch bumped.
    const row = (await onA.query('select * from shows where id = $1', [show])).rows[0];
    const cols = Object.keys(row);
    await onB.query(`insert into shows (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, cols.map((c) => (c === 'price_tiers' ? JSON.stringify(row[c]) : row[c])));
    const seats = (await onA.query<{ seat_id: string; tier: string }>('select seat_id, tier from show_seats where show_id = $1', [show])).rows;
    await onB.query(`insert into show_seats (show_id, seat_id, tier) select $1, s, t from unnest($2::text[], $3::text[]) as x (s, t)`, [show, seats.map((s) => s.seat_id), seats.map((s) => s.tier)]);
    await onA.query('delete from show_seats where show_id = $1', [show]);
    await onA.query('delete from shows where id = $1', [show]);
    await t.service.ctx.db.query("update show_placement set shard = 'b', epoch = epoch + 1 where show_id = $1", [show]);
    // At once: the claim finds no show where the cached placement pointed, reads it afresh, claims on b.
    const h = await hold(show, ['B5']);
    expectStatus(h, 201);
    expect(await count(onB, 'select count(*) as n from holds where id = $1', [h.body.hold_id])).toBe(1);
    // Within the refresh period the map reads b too.
    await until('the map from b', async () => {
      const m = await t.http.get(`/v1/shows/${show}/seats`);
      return m.status === 200 && m.body.seats.find((s: { seat: string }) => s.seat === 'B5')?.status === 'held';
    }, 5000);
    expect((await t.http.get(`/v1/admin/shows/${show}/placement`, t.adminToken)).body).toEqual({ show_id: show, shard: 'b', epoch: 2 });
  });

  it('a show in state moving answers its holds 503 OVERLOADED with Retry-After while its map keeps answering', async () => {
    await t.service.ctx.db.query("update show_placement set state = 'moving' where show_id = $1", [onShardA]);
    try {
      const refused = await until('the moving state followed', async () => {
        const r = await hold(onShardA, ['B9']);
        return r.status === 503 ? r : null;
      }, 5000);
      expect(refused.body.code).toBe('OVERLOADED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expectStatus(await t.http.get(`/v1/shows/${onShardA}/seats`), 200);
    } finally {
      await t.service.ctx.db.query("update show_placement set state = 'active' where show_id = $1", [onShardA]);
    }
    await until('selling again', async () => (await hold(onShardA, ['B10'])).status === 201, 5000);
  });

  it('moves a show through POST /v1/admin/shows/{id}/move: holds keep their expiry, bookings follow, the source keeps nothing, sales go on', async () => {
    const show = await newShow({ shard: 'a' });
    const held = await hold(show, ['A1', 'A2']);
    expectStatus(held, 201);
    const paid = await hold(show, ['A3']);
    expectStatus(await t.http.post('/v1/bookings', { hold_id: paid.body.hold_id, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': newKey('move') }), 201);
    // One move at a time: a show already moving is refused.
    await t.service.ctx.db.query("update show_placement set state = 'moving' where show_id = $1", [show]);
    const busy = await t.http.post(`/v1/admin/shows/${show}/move`, { shard: 'b' }, t.adminToken);
    expectStatus(busy, 409);
    expect(busy.body.code).toBe('MOVE_IN_PROGRESS');
    await t.service.ctx.db.query("update show_placement set state = 'active' where show_id = $1", [show]);
    expectStatus(await t.http.post(`/v1/admin/shows/${show}/move`, { shard: 'nowhere' }, t.adminToken), 400);

    const moved = await t.http.post(`/v1/admin/shows/${show}/move`, { shard: 'b' }, t.adminToken);
    expectStatus(moved, 200);
    expect(moved.body).toMatchObject({ show_id: show, shard: 'b', epoch: 2 });
    expect(moved.body.paused_ms).toBeGreaterThanOrEqual(0);
    expect((await t.http.get(`/v1/admin/shows/${show}/placement`, t.adminToken)).body).toEqual({ show_id: show, shard: 'b', epoch: 2 });
    expect(await count(onA, 'select count(*) as n from show_seats where show_id = $1', [show])).toBe(0);
    expect(await count(onA, 'select count(*) as n from holds where show_id = $1', [show])).toBe(0);
    expect(await count(onB, 'select count(*) as n from show_seats where show_id = $1', [show])).toBe(20);
    // The hold kept its expiry; the booking reads from b; its seats stay taken; new holds sell on b.
    const again = await t.http.get(`/v1/holds/${held.body.hold_id}`, buyer.token);
    expectStatus(again, 200);
    expect(again.body.expires_at).toBe(held.body.expires_at);
    expect((await hold(show, ['A1'])).status).toBe(409);
    expect((await hold(show, ['A3'])).status).toBe(409);
    const fresh = await hold(show, ['B1']);
    expectStatus(fresh, 201);
    expect(await count(onB, 'select count(*) as n from holds where id = $1', [fresh.body.hold_id])).toBe(1);
    // Moving it where it is changes nothing.
    expect((await t.http.post(`/v1/admin/shows/${show}/move`, { shard: 'b' }, t.adminToken)).body).toMatchObject({ shard: 'b', epoch: 2, paused_ms: 0 });
    // The operators' command (npm run move-show -- SHOW SHARD) moves it back.
    const said: string[] = [];
    await adminCommand(t.service, ['move-show', show, 'a'], (m) => said.push(m));
    expect(said.at(-1)).toMatch(new RegExp(`show ${show} sells from shard a now \\(placement epoch 3\\)`));
    expect(await count(onA, 'select count(*) as n from show_seats where show_id = $1', [show])).toBe(20);
    expect(await count(onB, 'select count(*) as n from show_seats where show_id = $1', [show])).toBe(0);
    expectStatus(await t.http.get(`/v1/holds/${fresh.body.hold_id}`, buyer.token), 200);
  });

  it("a shard that does not answer makes only its shows answer 503 SHARD_UNAVAILABLE, within 2 s; the other shard's show keeps selling", async () => {
    await proxy.mode('blackhole');
    try {
      for (const seat of ['B1', 'B2']) {
        const started = Date.now();
        const r = await hold(onShardB, [seat]);
        const ms = Date.now() - started;
        expect(r.status, r.text).toBe(503);
        expect(r.body.code).toBe('SHARD_UNAVAILABLE');
        expect(r.body.shard).toBe('b');
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        expect(ms, 'answered within 2 s').toBeLessThan(2000);
      }
      for (const seat of ['B3', 'B4', 'B6']) {
        const started = Date.now();
        const r = await hold(onShardA, [seat]);
        expectStatus(r, 201);
        expect(Date.now() - started).toBeLessThan(1000);
      }
      const ready = await t.http.get('/readyz');
      expectStatus(ready, 200);
      expect(ready.body.shards_down).toEqual(['b']);
    } finally {
      await proxy.mode('pass');
    }
    const back = await retrying('shard b back', async () => {
      const r = await hold(onShardB, ['B7']);
      if (r.status !== 201) throw new Error(`got ${r.status}`);
      return r;
    }, 20_000);
    expectStatus(back, 201);
  });
});
