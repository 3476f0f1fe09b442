// A layout's section placements over HTTP: refused with a path when wrong, kept with
// the hall, and served as each placed section's `plan` in the sections summary (the
// others without one). The service runs with a shard, so the hall (control database)
// and the show's seats (the shard) are in different databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startTestService, type TestService } from '../support/service.js';
import { expectProblem } from './helpers.js';

let shard: TestDatabase;
let t: TestService;
let venueId: string;
let eventId: string;

const rows = [
  { row: 'A', seats: 6, tier: 'lower', section: '101' },
  { row: 'A', seats: 6, tier: 'lower', section: '102' },
  { row: 'A', seats: 8, tier: 'upper', section: '201' },
];

async function post(path: string, body: unknown) {
  const r = await t.http.post(path, body, t.adminToken);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
}

async function showOf(layout: unknown): Promise<string> {
  const hall = await post('/v1/admin/halls', { venue_id: venueId, name: 'Bowl', layout });
  const show = await post('/v1/admin/shows', {
    event_id: eventId, hall_id: hall.id, starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 },
  });
  return show.id as string;
}

beforeAll(async () => {
  shard = await createTestDatabase();
  t = await startTestService({ config: { shards: [{ name: 'a', url: shard.url }] } });
  venueId = (await post('/v1/admin/venues', { name: 'Plan Arena', city: 'Planville' })).id;
  eventId = (await post('/v1/admin/events', { title: 'Plan Concert', kind: 'concert' })).id;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await shard?.drop();
}, 60_000);

describe('a layout placing its sections', () => {
  it('answers each placed section with its plan, the others without one', async () => {
    const showId = await showOf({
      rows,
      sections: [{ section: '201', plan: { x: 50, y: 20, w: 300, h: 120, angle: -15 } }, { section: '101', plan: { x: 400, y: 700, w: 200, h: 100 } }],
    });
    const r = await t.http.get(`/v1/shows/${showId}/sections`);
    expect(r.status, r.text).toBe(200);
    const bySection = Object.fromEntries((r.body.sections as { section: string; plan?: unknown }[]).map((s) => [s.section, s]));
    expect(Object.keys(bySection)).toEqual(['101', '102', '201']);
    expect(bySection['101']).toMatchObject({ available: 6, plan: { x: 400, y: 700, w: 200, h: 100 } });
    expect(bySection['101']!.plan).not.toHaveProperty('angle');
    expect(bySection['201']).toMatchObject({ available: 8, plan: { x: 50, y: 20, w: 300, h: 120, angle: -15 } });
    expect(bySection['102']).not.toHaveProperty('plan');
    // The section's own part of the map is as it was.
    const part = await t.http.get(`/v1/shows/${showId}/seats?section=101`);
    expect(part.status).toBe(200);
    expect(part.body.seats).toHaveLength(6);
  });

  it('answers a hall without placements as before: no plan anywhere', async () => {
    const showId = await showOf({ rows });
    const r = await t.http.get(`/v1/shows/${showId}/sections`);
    expect(r.status).toBe(200);
    expect(r.body.sections).toEqual([
      { section: '101', available: 6, held: 0, booked: 0, min_price: 9500, max_price: 9500 },
      { section: '102', available: 6, held: 0, booked: 0, min_price: 9500, max_price: 9500 },
      { section: '201', available: 8, held: 0, booked: 0, min_price: 6500, max_price: 6500 },
    ]);
  });

  it('refuses an unknown section, a duplicate, a rectangle out of the box and a non-number, with paths', async () => {
    const refuse = async (sections: unknown, path: string) => {
      const r = await t.http.post('/v1/admin/halls', { venue_id: venueId, name: 'Bad', layout: { rows, sections } }, t.adminToken);
      expectProblem(r, 400, 'VALIDATION_FAILED');
      expect(JSON.stringify(r.body.errors), r.text).toContain(path);
    };
    const box = { x: 10, y: 10, w: 10, h: 10 };
    await refuse([{ section: '301', plan: box }], '/layout/sections/0/section');
    await refuse([{ section: '102', plan: box }, { section: '102', plan: box }], '/layout/sections/1/section');
    await refuse([{ section: '102', plan: { ...box, x: 995 } }], '/layout/sections/0/plan/w');
    await refuse([{ section: '102', plan: { ...box, angle: 270 } }], '/layout/sections/0/plan/angle');
    await refuse([{ section: '102', plan: { ...box, y: 'top' } }], 'y');
    const halls = await t.http.get('/v1/admin/halls', undefined, { authorization: `Bearer ${t.adminToken}` });
    expect((halls.body.halls as { name: string }[]).some((h) => h.name === 'Bad')).toBe(false);
  });
});
