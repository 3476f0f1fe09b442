// Moving a selling show through the service (docs/scale-out.md, issue #25): three
// PostgreSQL 15 clusters of the test's own (control, shard a, shard b;
// test/support/pgCluster.ts) and two instances: one follows placements every 100 ms,
// the other (stale) every 10 minutes. A 60,000-seat stadium show on a; 200 buyers
// claim its seats through both instances while POST /v1/admin/shows/{id}/move takes
// it to b; seat map viewers stream it on both. Then: no seat held twice (both shards
// read), every 201 hold on b with its expiry, the show's rows only on b, viewers'
// versions only growing and each resynced onto b's map, the stale instance answering
// 503 `moved` with Retry-After and then selling from b, and the rehearsal's audit
// (read through the API, shows on both shards) clean.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import os from 'node:os';
import pg from 'pg';
import { audit, readBooks } from '@boxoffice/rehearsal';
import { startCluster, type PgCluster } from '../support/pgCluster.js';
import { closeService, expectStatus, newKey, startService, until } from '../bookings/helpers.js';
import { endPool } from '../support/database.js';
import type { TestService } from '../support/service.js';
import { MapFollower, openStream, type SseConnection } from '../stream/sseClient.js';
import { stadiumLayout } from '../../src/app/demoCatalog.js';
import { seatId } from '../../src/domain/layout.js';

const BUYERS = 200;
/** The buyers pick seats in these sections (10,000 seats); section 101's viewers see them. */
const SECTIONS = ['101', '102', '103', '104'];
const ROWS = 'ABCDEFGHIJKLMNOPQRSTUVWXY';

let control: PgCluster | null = null;
let a: PgCluster | null = null;
let b: PgCluster | null = null;
let fresh: TestService | undefined;
let stale: TestService | undefined;
let onA: pg.Pool | null = null;
let onB: pg.Pool | null = null;
let buyers: { user_id: string; token: string }[] = [];
let stadiumShow = '';
let smallShowOnB = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = async (pool: pg.Pool, sql: string, params: unknown[]) => Number((await pool.query<{ n: string }>(sql, params)).rows[0]!.n);

beforeAll(async () => {
  [control, a, b] = await Promise.all([startCluster(), startCluster(), startCluster()]);
  const shared = {
    databaseUrl: control.url(),
    shards: [{ name: 'a', url: a.url() }, { name: 'b', url: b.url() }],
    syntheticBuyers: true,
    poolSize: 24,
  };
  fresh = await startService({ payments: {}, config: { ...shared, placementRefreshMs: 100 } });
  // The stale instance: it reads cached placements again only every 10 minutes, so it
  // learns of the move only from a claim that finds the show gone. Its payments go to
  // the same simulator.
  stale = await startService({ config: { ...shared, placementRefreshMs: 600_000, stripeApiUrl: fresh.service.ctx.config.stripeApiUrl } });
  onA = new pg.Pool({ connectionString: a.url(), max: 2 });
  onB = new pg.Pool({ connectionString: b.url(), max: 2 });
}, 300_000);

afterAll(async () => {
  await closeService(stale);
  await closeService(fresh);
  await Promise.all([onA && endPool(onA), onB && endPool(onB)]);
  await Promise.all([control?.destroy(), a?.destroy(), b?.destroy()]);
}, 120_000);

interface Held { hold_id: string; seats: string[]; expires_at: string; via: 'fresh' | 'stale'; at: number; token: string }
interface Refused { status: number; code: string; detail: string; retryAfter: string | undefined; via: 'fresh' | 'stale'; at: number }

describe('a show moved while it sells, through two instances', () => {
  it('moves a 60,000-seat show to shard b under 200 buyers: no seat twice, no hold lost, viewers resynced, the stale instance follows', { timeout: 600_000 }, async () => {
    const t = fresh!;
    const admin = t.adminToken;
    const venue = await t.http.post('/v1/admin/venues', { name: 'Move Stadium', city: 'Splitville' }, admin);
    const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'Bowl', layout: stadiumLayout() }, admin);
    expectStatus(hall, 201);
    const event = await t.http.post('/v1/admin/events', { title: 'Move Final' }, admin);
    const newShow = async (hallId: string, tiers: Record<string, number>, shard: string) => {
      const r = await t.http.post('/v1/admin/shows', {
        event_id: event.body.id, hall_id: hallId, currency: 'EUR', price_tiers: tiers, shard,
        starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(), hold_ttl_seconds: 600, per_user_limit: 1000,
      }, admin);
      expectStatus(r, 201);
      return r.body.id as string;
    };
    stadiumShow = await newShow(hall.body.id, { lower: 9500, upper: 6500 }, 'a');
    const small = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'Box', layout: { rows: [{ row: 'A', seats: 20, tier: 'standard' }] } }, admin);
    smallShowOnB = await newShow(small.body.id, { standard: 1000 }, 'b');
    expect(await count(onA!, 'select count(*) as n from show_seats where show_id = $1', [stadiumShow])).toBe(60_000);
    expect(await count(onB!, 'select count(*) as n from show_seats where show_id = $1', [stadiumShow])).toBe(0);

    const made = await t.http.post('/v1/admin/synthetic-buyers', { count: BUYERS, label: 'live-move' }, admin);
    expectStatus(made, 201);
    buyers = made.body.buyers;
    const via = { fresh: t, stale: stale! };

    // Both instances cache the placement before the move (the stale one keeps it).
    for (const [name, s] of Object.entries(via)) {
      const h = await s.http.post(`/v1/shows/${stadiumShow}/holds`, { seats: [seatId('Y', name === 'fresh' ? 100 : 99, '212')] }, buyers[name === 'fresh' ? 0 : 1]!.token);
      expectStatus(h, 201);
    }

    // Viewers on both instances: the whole show (gzip) and section 101; on a resync
    // they reconnect, half of them with Last-Event-ID, as EventSource would.
    interface Viewer { name: string; s: TestService; section?: string; resume: boolean; follower: MapFollower; conn: SseConnection | null; ends: number[]; opens: number }
    const viewers: Viewer[] = [];
    for (const [name, s] of Object.entries(via)) {
      viewers.push({ name: `${name}/show`, s, resume: name === 'fresh', follower: new MapFollower(), conn: null, ends: [], opens: 0 });
      viewers.push({ name: `${name}/101`, s, section: '101', resume: name === 'stale', follower: new MapFollower(), conn: null, ends: [], opens: 0 });
    }
    let watching = true;
    let buying = true;
    let buying$: Promise<void>[] = [];
    const open = async (v: Viewer) => {
      const last = v.follower.version;
      v.conn = await openStream(v.s, stadiumShow, {
        section: v.section, headers: v.section ? {} : { 'accept-encoding': 'gzip' },
        ...(v.resume && last !== null ? { lastEventId: String(last) } : {}),
      });
      expect(v.conn.status).toBe(200);
      v.follower.reset();
      v.opens++;
    };
    const watch = async (v: Viewer) => {
      while (watching) {
        if (v.conn === null || v.conn.ended) {
          if (v.conn?.ended) {
            v.follower.apply(v.conn, !v.section);
            v.ends.push(Date.now());
            await sleep(100);
          }
          await open(v);
        }
        v.follower.apply(v.conn!, !v.section);
        await sleep(50);
      }
    };
    for (const v of viewers) await open(v);
    await Promise.all(viewers.map((v) => v.conn!.until('the snapshot', () => v.conn!.events.some((e) => e.event === 'snapshot'), 60_000)));
    // Watchers and buyers stop with the test, whichever way it ends (their failures are the test's).
    const watchers = viewers.map((v) => watch(v).catch((err: unknown) => { watching = false; throw err; }));
    onTestFinished(async () => {
      watching = false;
      buying = false;
      for (const v of viewers) v.conn?.close();
      await Promise.allSettled([...watchers, ...buying$]);
    });

    // 200 buyers, even ones on the fresh instance, odd ones on the stale one, two random seats at a time.
    const held: Held[] = [];
    const refused: Refused[] = [];
    const other: string[] = [];
    let conflicts = 0;
    const pick = () => {
      const section = SECTIONS[Math.floor(Math.random() * SECTIONS.length)]!;
      const row = ROWS[Math.floor(Math.random() * ROWS.length)]!;
      const n = 1 + Math.floor(Math.random() * 99);
      return [seatId(row, n, section), seatId(row, n + 1, section)];
    };
    const buyer = async (k: number) => {
      const name = k % 2 === 0 ? 'fresh' : 'stale';
      const s = via[name];
      while (buying) {
        const r = await s.http.post(`/v1/shows/${stadiumShow}/holds`, { seats: pick() }, buyers[k]!.token);
        if (r.status === 201) held.push({ hold_id: r.body.hold_id, seats: r.body.seats, expires_at: r.body.expires_at, via: name, at: Date.now(), token: buyers[k]!.token });
        else if (r.status === 409) conflicts++;
        else if (r.status === 503) {
          refused.push({ status: r.status, code: r.body?.code, detail: r.body?.detail, retryAfter: r.headers['retry-after'] as string | undefined, via: name, at: Date.now() });
          await sleep(Math.min(2000, 1000 * Number(r.headers['retry-after'] ?? 1)));
        } else other.push(`${r.status} ${r.text.slice(0, 200)}`);
        await sleep(20);
      }
    };
    buying$ = Array.from({ length: BUYERS }, (_, k) => buyer(k));

    await until('buyers holding on shard a', async () => held.length >= 300, 60_000);
    const heldBefore = held.length;
    const moveStarted = Date.now();
    const loadBefore = os.loadavg()[0]!;
    const moved = await t.http.post(`/v1/admin/shows/${stadiumShow}/move`, { shard: 'b' }, admin);
    const moveEnded = Date.now();
    expectStatus(moved, 200);
    expect(moved.body).toMatchObject({ show_id: stadiumShow, shard: 'b', epoch: 2 });
    const loadAfter = os.loadavg()[0]!;

    // The stale instance answered `moved` (its claims went to a) and then sold from b.
    await until('the stale instance selling from b after a `moved`', async () => {
      const first = refused.find((r) => r.via === 'stale' && /moving to another database/.test(r.detail ?? ''));
      return first !== undefined && held.some((h) => h.via === 'stale' && h.at > first.at);
    }, 60_000);
    await until('a few hundred more holds on b', async () => held.filter((h) => h.at > moveEnded).length >= 200, 60_000);
    buying = false;
    await Promise.all(buying$);

    // Bookings through the fresh instance, on both shards, for the audit.
    const bookings: string[] = [];
    const pay = async (holdId: string, token: string) => {
      const r = await t.http.post('/v1/bookings', { hold_id: holdId, payment_method: 'pm_card_visa' }, token, { 'idempotency-key': newKey('move') });
      expectStatus(r, 201);
      bookings.push(r.body.booking_id);
    };
    const booker = buyers[2]!;
    for (const seats of [[seatId('A', 1, '111')], [seatId('A', 2, '111'), seatId('A', 3, '111')]]) {
      const h = await t.http.post(`/v1/shows/${stadiumShow}/holds`, { seats }, booker.token);
      expectStatus(h, 201);
      held.push({ hold_id: h.body.hold_id, seats: h.body.seats, expires_at: h.body.expires_at, via: 'fresh', at: Date.now(), token: booker.token });
      await pay(h.body.hold_id, booker.token);
    }
    const onBHold = await stale!.http.post(`/v1/shows/${smallShowOnB}/holds`, { seats: ['A1', 'A2'] }, booker.token);
    expectStatus(onBHold, 201);
    await pay(onBHold.body.hold_id, booker.token);

    // Viewers settle on b's map: every one resynced after the move began and ends at the map b serves.
    // A whole-show viewer reaches the map's version; a section's viewer gets only the
    // deltas that touch its section (its versions jump), so it reaches the map's seats.
    const latest = (await t.http.get(`/v1/shows/${stadiumShow}/seats`)).body as { version: number; seats: { seat: string; status: string; section?: string }[] };
    const differences = (v: Viewer) => {
      const want = latest.seats.filter((s) => !v.section || s.section === v.section);
      const wrong = want.filter((s) => v.follower.seats.get(s.seat) !== s.status).map((s) => `${s.seat}: map ${s.status}, viewer ${v.follower.seats.get(s.seat)}`);
      if (v.follower.seats.size !== want.length) wrong.push(`${v.follower.seats.size} seats, the map ${want.length}`);
      return wrong;
    };
    for (const v of viewers) {
      await until(`viewer ${v.name} at the map b serves (version ${latest.version})`, async () => {
        if (v.conn && !v.conn.ended) v.follower.apply(v.conn, !v.section);
        return v.section ? differences(v).length === 0 : (v.follower.version ?? -1) >= latest.version;
      }, 60_000);
    }
    watching = false;
    await Promise.all(watchers);
    for (const v of viewers) v.conn?.close();
    for (const v of viewers) {
      expect(v.follower.problems, v.name).toEqual([]);
      expect(v.ends.filter((at) => at >= moveStarted).length, `${v.name} resynced after the move`).toBeGreaterThanOrEqual(1);
      if (!v.section) expect(v.follower.version, v.name).toBe(latest.version);
      expect(differences(v).slice(0, 5), v.name).toEqual([]);
    }

    // No seat held twice: the 201 answers' seats are disjoint, and so are the holds on both shards.
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const h of held) for (const s of h.seats) {
      if (seen.has(s)) twice.push(`${s}: ${seen.get(s)} and ${h.hold_id}`);
      seen.set(s, h.hold_id);
    }
    expect(twice).toEqual([]);
    expect(await count(onA!, 'select count(*) as n from holds where show_id = $1', [stadiumShow])).toBe(0);
    expect(await count(onB!, `select count(*) as n from (select seat from holds h, unnest(h.seats) seat
                                 where h.show_id = $1 and h.status in ('active', 'paying', 'confirmed') group by seat having count(*) > 1) x`, [stadiumShow])).toBe(0);
    // No hold lost: every 201 (and the two before the buyers) is on b with its expiry and seats, its seats its own.
    const onBHolds = new Map((await onB!.query<{ id: string; seats: string[]; expires_at: Date; status: string }>(
      'select id, seats, expires_at, status from holds where show_id = $1', [stadiumShow])).rows.map((r) => [r.id, r]));
    const paid = new Set(held.slice(-2).map((h) => h.hold_id)); // the two the booker paid for: confirmed, their expiry no longer theirs to keep
    const lost = held.filter((h) => {
      const r = onBHolds.get(h.hold_id);
      if (!r || [...r.seats].sort().join() !== [...h.seats].sort().join()) return true;
      return paid.has(h.hold_id) ? r.status !== 'confirmed' : r.status !== 'active' || r.expires_at.toISOString() !== new Date(h.expires_at).toISOString();
    });
    expect(lost.map((h) => h.hold_id)).toEqual([]);
    expect(onBHolds.size).toBe(held.length + 2);
    const owned = await count(onB!, `select count(*) as n from holds h cross join lateral unnest(h.seats) as u (seat)
                                       join show_seats s on s.show_id = h.show_id and s.seat_id = u.seat
                                      where h.show_id = $1 and h.status = 'active' and s.hold_id is distinct from h.id`, [stadiumShow]);
    expect(owned).toBe(0);
    // Rows only on b.
    expect(await count(onA!, 'select count(*) as n from show_seats where show_id = $1', [stadiumShow])).toBe(0);
    expect(await count(onA!, 'select count(*) as n from bookings where show_id = $1', [stadiumShow])).toBe(0);
    expect(await count(onB!, 'select count(*) as n from show_seats where show_id = $1', [stadiumShow])).toBe(60_000);

    const stales = refused.filter((r) => r.via === 'stale');
    expect(stales.every((r) => r.code === 'OVERLOADED' && Number(r.retryAfter) > 0)).toBe(true);
    expect(other).toEqual([]);

    // The cross-shard audit, through the API only (packages/rehearsal): both shows, every booking, every hold.
    await until('the tickets issued', async () => {
      const mine = await t.http.get('/v1/bookings', booker.token);
      return mine.status === 200 && mine.body.bookings.length === 3 && mine.body.bookings.every((x: { status: string }) => x.status === 'confirmed');
    }, 30_000);
    const books = await readBooks({
      baseUrl: t.baseUrl, paysimUrl: t.service.ctx.config.stripeApiUrl!, admin, showIds: [stadiumShow, smallShowOnB],
      holds: held.map((h) => ({ id: h.hold_id, token: h.token })), bookings,
    });
    const result = audit(books);
    expect(result.checks.filter((c) => c.count > 0)).toEqual([]);
    expect(books.bookings.map((x) => x.showId).sort()).toEqual([stadiumShow, stadiumShow, smallShowOnB].sort());

    // A read by id or of the map is how the stale instance learns of a move too: a show
    // whose placement it cached, moved while it only read, is read from its new shard.
    const quiet = await newShow(small.body.id, { standard: 1000 }, 'a');
    expectStatus(await stale!.http.get(`/v1/shows/${quiet}/seats`), 200);
    const quietHold = await t.http.post(`/v1/shows/${quiet}/holds`, { seats: ['A3'] }, booker.token);
    expectStatus(quietHold, 201);
    expectStatus(await t.http.post(`/v1/admin/shows/${quiet}/move`, { shard: 'b' }, admin), 200);
    // So is a read by id: the hold is not on a any more, a says the show moved away, and
    // the stale instance reads it from b (rather than a 404 until its next refresh).
    const staleHold = await stale!.http.get(`/v1/holds/${quietHold.body.hold_id}`, booker.token);
    expectStatus(staleHold, 200);
    expect(staleHold.body).toMatchObject({ hold_id: quietHold.body.hold_id, seats: ['A3'], status: 'active' });
    const staleMap = await stale!.http.get(`/v1/shows/${quiet}/seats`);
    expectStatus(staleMap, 200);
    expect(staleMap.body.seats.find((x: { seat: string }) => x.seat === 'A3')?.status).toBe('held');
    expect(await count(onA!, 'select count(*) as n from show_seats where show_id = $1', [quiet])).toBe(0);

    const pausedMs = moved.body.paused_ms as number;
    console.log(`live move: paused_ms ${pausedMs} (move request ${moveEnded - moveStarted} ms), load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}; `
      + `holds ${held.length} (${heldBefore} before the move), 409 ${conflicts}, 503 ${refused.length} (stale instance ${stales.length}: `
      + `${stales.filter((r) => /database/.test(r.detail ?? '')).length} moved), viewer reconnects ${viewers.map((v) => `${v.name} ${v.opens - 1}`).join(', ')}`);
  });
});
