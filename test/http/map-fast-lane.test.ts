// Cached map answers sent before the router (src/http/mapFastLane.ts) are the
// answers the router sends: the same status, headers and bytes, for the map, a
// section, the section summary, each content coding and If-None-Match; everything
// the lane does not know goes to the router (a map not built yet, an unknown
// section or parameter, HEAD, an instance logging its answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
let showId: string;

async function raw(path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const r = await request(`${t.baseUrl}${path}`, { method, headers });
  const bytes = Buffer.from(await r.body.arrayBuffer());
  const { date: _date, ...rest } = r.headers;
  return { status: r.statusCode, headers: rest, bytes };
}

const fastAnswers = () => t.service.ctx.metrics.seatMapFastTally.answers;

/** The same request answered by the lane, then by the router (answers logged at info send everything through it). */
async function bothWays(path: string, headers: Record<string, string> = {}) {
  const log = t.service.ctx.log;
  const before = fastAnswers();
  const lane = await raw(path, headers);
  const byLane = fastAnswers() - before;
  const level = log.level;
  log.level = 'info';
  try {
    const router = await raw(path, headers);
    expect(fastAnswers() - before, 'the router answered the second').toBe(byLane);
    return { lane, router, byLane };
  } finally {
    log.level = level;
  }
}

beforeAll(async () => {
  // A cache that outlives the test: every read after the first finds the map built.
  t = await startTestService({ config: { seatMapCacheMs: 600_000 } });
  const post = async (path: string, body: unknown) => {
    const r = await t.http.post(path, body, t.adminToken);
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const venue = await post('/v1/admin/venues', { name: 'Lane Arena', city: 'Testville' });
  const rows = Array.from({ length: 8 }, (_, i) => ({ row: String.fromCharCode(65 + i), seats: 40, tier: i < 4 ? 'lower' : 'upper', section: i < 4 ? '101' : '102' }));
  const hall = await post('/v1/admin/halls', { venue_id: venue.id, name: 'Bowl', layout: { rows } });
  const event = await post('/v1/admin/events', { title: 'Lane Concert', kind: 'concert', duration_minutes: 120 });
  const show = await post('/v1/admin/shows', {
    event_id: event.id, hall_id: hall.id, starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 }, per_user_limit: 10,
  });
  showId = show.id as string;
});
afterAll(async () => {
  await t?.close();
});

describe('map answers before the router', () => {
  it('leaves the first read, which builds the map, to the router', async () => {
    const before = fastAnswers();
    expect((await raw(`/v1/shows/${showId}/seats`)).status).toBe(200);
    expect(fastAnswers()).toBe(before);
  });

  for (const [name, path] of [['the map', 'seats'], ['a section', 'seats?section=102'], ['the section summary', 'sections']] as const) {
    for (const coding of ['identity', 'gzip', 'br'] as const) {
      it(`sends ${name} (${coding}) as the router does`, async () => {
        const headers: Record<string, string> = coding === 'identity' ? {} : { 'accept-encoding': coding };
        const url = `/v1/shows/${showId}/${path}`;
        // The router compresses on first ask; once built the lane can send it.
        await raw(url, headers);
        const { lane, router, byLane } = await bothWays(url, headers);
        expect(byLane).toBe(1);
        expect(lane.status).toBe(200);
        expect(lane.headers).toEqual(router.headers);
        expect(lane.bytes.equals(router.bytes)).toBe(true);
        if (coding !== 'identity' && lane.bytes.length >= 256) expect(lane.headers['content-encoding']).toBe(coding);
      });
    }
  }

  it('answers If-None-Match with the same 304', async () => {
    const url = `/v1/shows/${showId}/seats?section=101`;
    const first = await raw(url, { 'accept-encoding': 'br' });
    const { lane, router, byLane } = await bothWays(url, { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) });
    expect(byLane).toBe(1);
    expect(lane.status).toBe(304);
    expect(lane.headers).toEqual(router.headers);
    expect(lane.bytes.length).toBe(0);
  });

  it('leaves to the router what it does not know: an unknown section or parameter, HEAD, a percent-encoded id', async () => {
    const before = fastAnswers();
    expect((await raw(`/v1/shows/${showId}/seats?section=999`)).status).toBe(400);
    expect((await raw(`/v1/shows/${showId}/seats?film=x`)).status).toBe(400);
    expect((await raw(`/v1/shows/${showId}/seats?section=101&section=102`)).status).toBe(400);
    expect((await raw(`/v1/shows/${showId}/seats`, {}, 'HEAD')).status).toBe(200);
    expect((await raw(`/v1/shows/${encodeURIComponent(showId).replace('_', '%5F')}/seats`)).status).toBe(200);
    expect(fastAnswers()).toBe(before);
  });
});
