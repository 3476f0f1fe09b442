// The embedded default (PGlite, no DATABASE_URL): a smoke pass over HTTP, and a
// PGlite data directory that migrates idempotently and keeps its data across reopen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestService, type TestService } from './support/service.js';
import { createShow, registerBuyers } from './support/catalog.js';
import { openPglite } from '../src/db/client.js';
import { migrate, migrationsDir } from '../src/db/migrate.js';

describe('PGlite in memory: smoke pass over HTTP', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService({ pglite: true }); });
  afterAll(async () => { await t?.close(); });

  it('runs on PGlite', async () => {
    expect(t.service.ctx.db.kind).toBe('pglite');
    expect((await t.http.get('/readyz')).status).toBe(200);
  });

  it('admin builds a show, buyers hold, conflict, release, map and search follow', async () => {
    const { showId, eventId } = await createShow(t, { rows: 3, seatsPerRow: 6, city: 'Lisbon', timezone: 'Europe/Lisbon' });
    const [a, b] = await registerBuyers(t, 2);
    const seatsOf = async () => {
      const m = await t.http.get(`/v1/shows/${showId}/seats`);
      expect(m.status).toBe(200);
      return { version: m.body.version as number, status: new Map<string, string>(m.body.seats.map((s: { seat: string; status: string }) => [s.seat, s.status])) };
    };
    const m0 = await seatsOf();
    expect(m0.status.size).toBe(18);

    const first = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['B3', 'B4'] }, a!.token);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ show_id: showId, seats: ['B3', 'B4'], status: 'active', amount: 2000, currency: 'EUR' });

    const second = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['B4', 'B5'] }, b!.token);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['B4'] });
    expect(String(second.headers['content-type'])).toMatch(/^application\/problem\+json/);

    const m1 = await seatsOf();
    expect(m1.version).toBeGreaterThan(m0.version);
    expect([m1.status.get('B3'), m1.status.get('B4'), m1.status.get('B5')]).toEqual(['held', 'held', 'available']);

    expect((await t.http.delete(`/v1/holds/${first.body.hold_id}`, a!.token)).status).toBe(204);
    expect((await t.http.get(`/v1/holds/${first.body.hold_id}`, a!.token)).body.status).toBe('released');
    const m2 = await seatsOf();
    expect(m2.version).toBeGreaterThan(m1.version);
    expect([...m2.status.values()].every((s) => s === 'available')).toBe(true);

    const third = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['B4', 'B5'] }, b!.token);
    expect(third.status).toBe(201);
    expect((await seatsOf()).status.get('B4')).toBe('held');

    const byCity = await t.http.get('/v1/shows?city=lisbon');
    expect(byCity.status).toBe(200);
    expect(byCity.body.shows.map((s: { id: string }) => s.id)).toEqual([showId]);
    const byEvent = await t.http.get(`/v1/shows?movie=${eventId}`);
    expect(byEvent.body.shows.map((s: { id: string }) => s.id)).toEqual([showId]);
    const byDate = await t.http.get(`/v1/shows?date=2001-01-01`);
    expect(byDate.body.shows).toEqual([]);

    // events with a show to come, title words and unknown parameters work on PGlite too
    const events = await t.http.get('/v1/events?city=LISBON&q=film%20TEST');
    expect(events.status, events.text).toBe(200);
    const shown = (await t.http.get(`/v1/shows/${showId}`)).body;
    expect(events.body.events).toEqual([{ id: eventId, title: 'Test Film', kind: 'film', next_show_at: shown.starts_at }]);
    expect((await t.http.get('/v1/events?q=fil')).body.events.map((e: { id: string }) => e.id)).toEqual([eventId]);
    expect((await t.http.get('/v1/events?q=ilm')).body.events).toEqual([]);
    expect((await t.http.get('/v1/shows?q=film&city=lisbon')).body.shows.map((s: { id: string }) => s.id)).toEqual([showId]);
    const unknown = await t.http.get('/v1/events?film=x');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: 'querystring:/film', message: 'unknown query parameter "film"' }]);
    const venues = await t.http.get('/v1/admin/venues?limit=1', t.adminToken);
    expect(venues.status, venues.text).toBe(200);
    expect(venues.body).toMatchObject({ venues: [{ city: 'Lisbon' }], next_cursor: null });
  });
});

describe('PGlite on disk', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'boxoffice-pglite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates idempotently and keeps its data across close and reopen', async () => {
    const files = readdirSync(migrationsDir()).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    expect(files.length).toBeGreaterThanOrEqual(2);

    const db = await openPglite(dir);
    expect(await migrate(db)).toEqual(files);
    expect(await migrate(db)).toEqual([]);
    await db.query("insert into venues (id, name, city, timezone) values ('ven_persist', 'Kept', 'Porto', 'Europe/Lisbon')");
    await db.close();

    const reopened = await openPglite(dir);
    try {
      expect(await migrate(reopened)).toEqual([]);
      const applied = await reopened.query<{ version: string }>('select version from schema_migrations order by version');
      expect(applied.rows.map((r) => r.version)).toEqual(files);
      const venue = await reopened.query('select name, city from venues where id = $1', ['ven_persist']);
      expect(venue.rows).toEqual([{ name: 'Kept', city: 'Porto' }]);
      // the schema works after reopen: the database clock answers
      expect((await reopened.query<{ now: Date }>('select bo_now() as now')).rows[0]!.now).toBeInstanceOf(Date);
    } finally {
      await reopened.close();
    }
  });
});
