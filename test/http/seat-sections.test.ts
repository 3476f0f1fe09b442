// Large maps: the per-section summary, a section's part of the map, and both
// compressed (gzip, br) as Accept-Encoding asks, with ETag / If-None-Match.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { SeatMaps } from '../../src/app/seatMaps.js';
import { expectProblem, sleep } from './helpers.js';

interface MapSeat { seat: string; status: string; tier: string; price: number; row: string; number: number; section?: string }
interface SeatMap { show_id: string; version: number; seats: MapSeat[] }
interface Summary { section: string; available: number; held: number; booked: number; min_price: number; max_price: number }

let t: TestService;
let showId: string;
let plainShowId: string;
let a: Buyer;

/** Sections 101 (lower; row B of 102 is upper), 102 and 201, with rows A and B; seat ids like 101-A1. */
async function sectionedShow(): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const r = await t.http.post(path, body, t.adminToken);
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const venue = await post('/v1/admin/venues', { name: 'Test Arena', city: 'Testville' });
  const rows = [
    { row: 'A', seats: 10, tier: 'lower', section: '101', accessible: [1] },
    { row: 'B', seats: 10, tier: 'lower', section: '101' },
    { row: 'A', seats: 8, tier: 'lower', section: '102' },
    { row: 'B', seats: 8, tier: 'upper', section: '102' },
    { row: 'A', seats: 12, tier: 'upper', section: '201' },
  ];
  const hall = await post('/v1/admin/halls', { venue_id: venue.id, name: 'Bowl', layout: { rows } });
  const event = await post('/v1/admin/events', { title: 'Test Concert', kind: 'concert', duration_minutes: 120 });
  const show = await post('/v1/admin/shows', {
    event_id: event.id, hall_id: hall.id, starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 }, per_user_limit: 10,
  });
  return show.id as string;
}

beforeAll(async () => {
  t = await startTestService({ payments: {} });
  [showId, { showId: plainShowId }] = await Promise.all([sectionedShow(), createShow(t, { rows: 3, seatsPerRow: 8 })]);
  [a] = (await registerBuyers(t, 1)) as [Buyer];
  // 101-A1, 101-A2 and 102-B3 held; 201-A5 and 201-A6 booked.
  expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['101-A1', '101-A2', '102-B3'] }, a.token)).status).toBe(201);
  const h = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['201-A5', '201-A6'] }, a.token);
  expect(h.status).toBe(201);
  const b = await t.http.post('/v1/bookings', { hold_id: h.body.hold_id, payment_method: 'pm_card_visa' }, a.token, { 'idempotency-key': randomBytes(8).toString('hex') });
  expect(b.body.status, b.text).toBe('confirmed');
});
afterAll(async () => {
  await t?.close();
});

const get = (path: string, headers?: Record<string, string>) => t.http.get(path, undefined, headers);

describe('section summary', () => {
  it('counts each section\'s seats by status and gives its prices over all its seats', async () => {
    const r = await get(`/v1/shows/${showId}/sections`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['sections', 'show_id', 'version']);
    expect(r.body.show_id).toBe(showId);
    const map = (await get(`/v1/shows/${showId}/seats`)).body as SeatMap;
    expect(r.body.version).toBe(map.version);
    expect(r.body.sections as Summary[]).toEqual([
      { section: '101', available: 18, held: 2, booked: 0, min_price: 9500, max_price: 9500 },
      { section: '102', available: 15, held: 1, booked: 0, min_price: 6500, max_price: 9500 },
      { section: '201', available: 10, held: 0, booked: 2, min_price: 6500, max_price: 6500 },
    ]);
  });

  it('a hall without sections has sections: []', async () => {
    const r = await get(`/v1/shows/${plainShowId}/sections`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ show_id: plainShowId, version: expect.any(Number), sections: [] });
  });

  it('unknown show: 404', async () => {
    expectProblem(await get('/v1/shows/show_000000000000000000000000/sections'), 404, 'NOT_FOUND');
  });
});

describe('a section of the map', () => {
  it('is the full map filtered to the section, with the show\'s version', async () => {
    const full = (await get(`/v1/shows/${showId}/seats`)).body as SeatMap;
    for (const section of ['101', '102', '201']) {
      const r = await get(`/v1/shows/${showId}/seats?section=${section}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ show_id: showId, version: full.version, seats: full.seats.filter((s) => s.section === section) });
    }
    const part = (await get(`/v1/shows/${showId}/seats?section=102`)).body as SeatMap;
    expect(part.seats.find((s) => s.seat === '102-B3')).toMatchObject({ status: 'held', tier: 'upper', price: 6500, row: 'B', number: 3 });
  });

  it('an unknown section, or a hall without sections: 400 VALIDATION_FAILED; unknown show first: 404', async () => {
    expectProblem(await get(`/v1/shows/${showId}/seats?section=999`), 400, 'VALIDATION_FAILED');
    expectProblem(await get(`/v1/shows/${plainShowId}/seats?section=101`), 400, 'VALIDATION_FAILED');
    expectProblem(await get(`/v1/shows/${showId}/seats?section=1%2001`), 400, 'VALIDATION_FAILED');
    expectProblem(await get(`/v1/shows/${showId}/seats?sector=101`), 400, 'VALIDATION_FAILED');
    expectProblem(await get('/v1/shows/show_000000000000000000000000/seats?section=101'), 404, 'NOT_FOUND');
  });
});

describe('ETag and If-None-Match', () => {
  it('the summary, each section and the map have their own tags, each answering 304 without a body', async () => {
    const paths = [`/v1/shows/${showId}/sections`, `/v1/shows/${showId}/seats?section=101`, `/v1/shows/${showId}/seats?section=201`, `/v1/shows/${showId}/seats`];
    const tags: string[] = [];
    for (const path of paths) {
      const r = await get(path);
      const tag = r.headers.etag as string;
      expect(tag).toMatch(/^"[^"]+"$/);
      tags.push(tag);
      const again = await get(path, { 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.etag).toBe(tag);
      expect(again.headers.vary).toBe('Accept-Encoding');
      // weak comparison, and a list
      expect((await get(path, { 'if-none-match': `"other", W/${tag}` })).status).toBe(304);
      expect((await get(path, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    expect(new Set(tags).size).toBe(paths.length);
  });

  it('a hold changes the tags of the summary and of every section (the version is the show\'s)', async () => {
    const before = await Promise.all([get(`/v1/shows/${showId}/sections`), get(`/v1/shows/${showId}/seats?section=201`)]);
    const h = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['101-B9'] }, a.token);
    expect(h.status).toBe(201);
    const summary = await get(`/v1/shows/${showId}/sections`, { 'if-none-match': before[0].headers.etag as string });
    expect(summary.status).toBe(200);
    expect((summary.body.sections as Summary[])[0]).toMatchObject({ section: '101', available: 17, held: 3 });
    expect(summary.body.version).toBeGreaterThan(before[0].body.version);
    const part = await get(`/v1/shows/${showId}/seats?section=201`, { 'if-none-match': before[1].headers.etag as string });
    expect(part.status).toBe(200);
    expect(part.body.version).toBe(summary.body.version);
    expect((await t.http.delete(`/v1/holds/${h.body.hold_id}`, a.token)).status).toBe(204);
  });
});

describe('compression', () => {
  const paths = () => [`/v1/shows/${showId}/seats`, `/v1/shows/${showId}/seats?section=101`, `/v1/shows/${showId}/sections`, `/v1/shows/${plainShowId}/seats`];

  it('gzip and br answers decode to the very JSON of the plain answer, smaller, with Vary and their own tags', async () => {
    for (const path of paths()) {
      const plain = await get(path);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      for (const coding of ['gzip', 'br']) {
        const r = await get(path, { 'accept-encoding': coding });
        expect(r.status).toBe(200);
        expect(r.headers['content-encoding'], `${path} ${coding}`).toBe(coding);
        expect(r.headers.vary).toBe('Accept-Encoding');
        expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
        expect(r.text).toBe(plain.text);
        expect(r.wire!.length).toBeLessThan(plain.wire!.length);
        expect(Number(r.headers['content-length'])).toBe(r.wire!.length);
        const tag = r.headers.etag as string;
        expect(tag).not.toBe(plain.headers.etag);
        const again = await get(path, { 'accept-encoding': coding, 'if-none-match': tag });
        expect(again.status).toBe(304);
        expect(again.wire!.length).toBe(0);
        expect(again.headers['content-encoding']).toBeUndefined();
      }
    }
  });

  it('picks by q-value, br on a tie; identity when nothing offered is acceptable', async () => {
    const path = `/v1/shows/${showId}/seats`;
    const codingFor = async (accept: string) => (await get(path, { 'accept-encoding': accept })).headers['content-encoding'] ?? 'identity';
    expect(await codingFor('gzip, deflate, br')).toBe('br');
    expect(await codingFor('gzip;q=1.0, br;q=0.5')).toBe('gzip');
    expect(await codingFor('br;q=0, gzip')).toBe('gzip');
    expect(await codingFor('*')).toBe('br');
    expect(await codingFor('deflate, zstd')).toBe('identity');
    expect(await codingFor('gzip;q=0.2, identity;q=0.8')).toBe('identity');
    expect(await codingFor('identity')).toBe('identity');
  });

  it('a tiny answer goes out uncompressed', async () => {
    const r = await get(`/v1/shows/${plainShowId}/sections`, { 'accept-encoding': 'br, gzip' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
  });
});

describe('the cache', () => {
  it('a refresh that finds nothing changed keeps the snapshot, and with it the bytes it already compressed', async () => {
    const maps = new SeatMaps(t.service.ctx.db, t.service.ctx.halls, 20, 2000); // waits for the publisher, as the service does
    const first = (await maps.get(showId).answer)!;
    const br = await first.section('101')!.in('br').bytes();
    await sleep(30);
    const second = maps.get(showId);
    expect(second.cached).toBe(false);
    const kept = (await second.answer)!;
    expect(kept).toBe(first);
    expect(await kept.section('101')!.in('br').bytes()).toBe(br);

    const h = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['201-A12'] }, a.token);
    expect(h.status).toBe(201);
    await sleep(30);
    const fresh = (await maps.get(showId).answer)!;
    expect(fresh).not.toBe(first);
    expect(fresh.etag).not.toBe(first.etag);
    expect(fresh.version).toBeGreaterThan(first.version);
    expect((await t.http.delete(`/v1/holds/${h.body.hold_id}`, a.token)).status).toBe(204);
  });
});

describe('answers from a warm cache (the synchronous path)', () => {
  let warm: TestService;
  beforeAll(async () => {
    warm = await startTestService({ config: { seatMapCacheMs: 60_000 } });
  });
  afterAll(async () => {
    await warm?.close();
  });

  it('serves the same bytes, 304s, compressed bytes and refusals from memory as from a fresh build', async () => {
    const { showId: id } = await createShow(warm, { rows: 4, seatsPerRow: 10 });
    const path = `/v1/shows/${id}/seats`;
    const first = await warm.http.get(path);
    const cached = await warm.http.get(path);
    expect(cached.status).toBe(200);
    expect(cached.text).toBe(first.text);
    expect(cached.headers.etag).toBe(first.headers.etag);
    expect((await warm.http.get(path, undefined, { 'if-none-match': first.headers.etag as string })).status).toBe(304);
    for (const coding of ['br', 'gzip']) {
      // the first ask compresses (and waits for it), the next ones send the kept bytes
      const a = await warm.http.get(path, undefined, { 'accept-encoding': coding });
      const b = await warm.http.get(path, undefined, { 'accept-encoding': coding });
      expect(a.headers['content-encoding']).toBe(coding);
      expect(b.headers['content-encoding']).toBe(coding);
      expect(b.wire!.equals(a.wire!)).toBe(true);
      expect(b.text).toBe(first.text);
    }
    expectProblem(await warm.http.get(`${path}?section=101`), 400, 'VALIDATION_FAILED');
    expect((await warm.http.get(`/v1/shows/${id}/sections`)).body.sections).toEqual([]);
    const reads = await warm.service.ctx.metrics.seatMapReads.get();
    const bySource = Object.fromEntries(reads.values.map((v) => [v.labels.source, v.value]));
    expect(bySource).toMatchObject({ database: 1, not_modified: 1 });
    expect(bySource.cache).toBeGreaterThanOrEqual(5);
  });
});
