// Accounts and the catalog through real HTTP: registration, sign-in, roles (and a
// demotion taking effect at once), venues/halls/events/shows as the contract shapes
// them, PATCH, search by city/event/movie/date in the venue's timezone, sections,
// explicit seat numbers, accessible seats, and a 60,000-seat stadium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { registerBuyers } from '../support/catalog.js';
import { expectProblem, fromNow } from './helpers.js';

let t: TestService;
beforeAll(async () => { t = await startTestService(); });
afterAll(async () => { await t?.close(); });

const SHOW_KEYS = ['id', 'event', 'venue', 'hall', 'starts_at', 'sale_opens_at', 'currency', 'price_tiers', 'status',
  'hold_ttl_seconds', 'per_user_limit', 'cancel_until_minutes_before', 'waiting_room', 'expected_demand'].sort();
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function venue(body: Record<string, unknown>) {
  const r = await t.http.post('/v1/admin/venues', body, t.adminToken);
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; name: string; city: string; timezone: string };
}
async function hall(venueId: string, rows: unknown[], name = 'Hall') {
  const r = await t.http.post('/v1/admin/halls', { venue_id: venueId, name, layout: { rows } }, t.adminToken);
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; venue_id: string; name: string; seat_count: number };
}
async function event(title: string, kind = 'film') {
  const r = await t.http.post('/v1/admin/events', { title, kind, duration_minutes: 100 }, t.adminToken);
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; title: string; kind: string };
}
async function show(body: Record<string, unknown>) {
  const r = await t.http.post('/v1/admin/shows', body, t.adminToken);
  expect(r.status, r.text).toBe(201);
  return r.body;
}
const ids = (r: { body: { shows: { id: string }[] } }) => r.body.shows.map((s) => s.id);

describe('accounts', () => {
  it('registers (201 {user_id, token}) and signs in (200 {user_id, token, role})', async () => {
    const reg = await t.http.post('/v1/users', { email: 'ana@example.test', password: 'correct-horse', name: 'Ana' });
    expect(reg.status).toBe(201);
    expect(Object.keys(reg.body).sort()).toEqual(['token', 'user_id']);
    expect(typeof reg.body.user_id).toBe('string');
    expect(typeof reg.body.token).toBe('string');
    // the registration token is a working bearer token
    const probe = await t.http.get('/v1/holds/hold_000000000000000000000000', reg.body.token);
    expectProblem(probe, 404, 'NOT_FOUND');

    const signIn = await t.http.post('/v1/sessions', { email: 'ana@example.test', password: 'correct-horse' });
    expect(signIn.status).toBe(200);
    expect(Object.keys(signIn.body).sort()).toEqual(['role', 'token', 'user_id']);
    expect(signIn.body).toMatchObject({ user_id: reg.body.user_id, role: 'user' });

    // passwords are stored with a slow KDF, never in clear
    const stored = await t.service.ctx.db.query<{ password_hash: string }>("select password_hash from users where email = 'ana@example.test'");
    expect(stored.rows[0]!.password_hash).not.toContain('correct-horse');
    expect(stored.rows[0]!.password_hash).toMatch(/scrypt|argon2/);
  });

  it('the admin from BOXOFFICE_ADMIN_EMAIL/PASSWORD exists and has admin rights', async () => {
    const s = await t.http.post('/v1/sessions', ADMIN);
    expect(s.status).toBe(200);
    expect(s.body.role).toBe('admin');
    const v = await t.http.post('/v1/admin/venues', { name: 'Admin Hall', city: 'Adminville' }, s.body.token);
    expect(v.status).toBe(201);
  });

  it('POST /v1/admin/users/{id}/role makes a staff user; staff is not admin', async () => {
    const [u] = await registerBuyers(t, 1);
    const r = await t.http.post(`/v1/admin/users/${u!.userId}/role`, { role: 'staff' }, t.adminToken);
    expect(r.status).toBe(200);
    const s = await t.http.post('/v1/sessions', { email: u!.email, password: 'password-123' });
    expect(s.body.role).toBe('staff');
    expectProblem(await t.http.post('/v1/admin/venues', { name: 'X', city: 'Y' }, s.body.token), 403, 'FORBIDDEN');
  });

  it('a promoted user gains admin rights, and a demoted admin loses them at once', async () => {
    const [u] = await registerBuyers(t, 1);
    const userToken = u!.token;
    expectProblem(await t.http.post('/v1/admin/venues', { name: 'X', city: 'Y' }, userToken), 403, 'FORBIDDEN');
    expect((await t.http.post(`/v1/admin/users/${u!.userId}/role`, { role: 'admin' }, t.adminToken)).status).toBe(200);
    const s = await t.http.post('/v1/sessions', { email: u!.email, password: 'password-123' });
    expect(s.body.role).toBe('admin');
    const adminToken = s.body.token as string;
    expect((await t.http.post('/v1/admin/venues', { name: 'New Admin Venue', city: 'Y' }, adminToken)).status).toBe(201);

    expect((await t.http.post(`/v1/admin/users/${u!.userId}/role`, { role: 'user' }, t.adminToken)).status).toBe(200);
    // the token still says role admin and has not expired; the rights are gone anyway
    expectProblem(await t.http.post('/v1/admin/venues', { name: 'X', city: 'Y' }, adminToken), 403, 'FORBIDDEN');
    expectProblem(await t.http.post(`/v1/admin/users/${u!.userId}/role`, { role: 'admin' }, adminToken), 403, 'FORBIDDEN');
    expectProblem(await t.http.patch('/v1/admin/shows/show_000000000000000000000000', { per_user_limit: 1 }, adminToken), 403, 'FORBIDDEN');
  });
});

describe('catalog CRUD', () => {
  it('venues, halls, events and shows have the contract shapes; GET returns the same show', async () => {
    const v = await venue({ name: 'Deccan Talkies', city: 'Pune', timezone: 'Asia/Kolkata' });
    expect(Object.keys(v).sort()).toEqual(['city', 'id', 'name', 'timezone']);
    expect(v).toMatchObject({ name: 'Deccan Talkies', city: 'Pune', timezone: 'Asia/Kolkata' });
    const utc = await venue({ name: 'No Zone', city: 'Nowhere' });
    expect(utc.timezone).toBe('UTC');

    const h = await hall(v.id, [{ row: 'A', seats: 20, tier: 'standard' }, { row: 'B', seats: 20, tier: 'premium' }], 'Screen 1');
    expect(Object.keys(h).sort()).toEqual(['id', 'name', 'seat_count', 'venue_id']);
    expect(h).toMatchObject({ venue_id: v.id, name: 'Screen 1', seat_count: 40 });

    const e = await event('The Long Matinee');
    expect(e).toMatchObject({ title: 'The Long Matinee', kind: 'film' });
    expect(typeof e.id).toBe('string');

    const starts = fromNow(5 * 86_400_000);
    const before = Date.now();
    const s = await show({ event_id: e.id, hall_id: h.id, starts_at: starts, currency: 'INR', price_tiers: { standard: 25000, premium: 40000 } });
    expect(Object.keys(s).sort()).toEqual(SHOW_KEYS);
    expect(s.event).toEqual({ id: e.id, title: 'The Long Matinee', kind: 'film' });
    expect(s.venue).toEqual({ id: v.id, name: 'Deccan Talkies', city: 'Pune', timezone: 'Asia/Kolkata' });
    expect(s.hall).toEqual({ id: h.id, name: 'Screen 1' });
    expect(s).toMatchObject({
      currency: 'INR', price_tiers: { standard: 25000, premium: 40000 },
      hold_ttl_seconds: 600, per_user_limit: 10, cancel_until_minutes_before: 120, waiting_room: false, expected_demand: 0,
    });
    expect(s.starts_at).toMatch(RFC3339_UTC);
    expect(Date.parse(s.starts_at)).toBe(Date.parse(starts));
    expect(s.sale_opens_at).toMatch(RFC3339_UTC);
    // without sale_opens_at the sale is open from creation
    expect(Date.parse(s.sale_opens_at)).toBeGreaterThanOrEqual(before - 60_000);
    expect(Date.parse(s.sale_opens_at)).toBeLessThanOrEqual(Date.now() + 1000);

    const got = await t.http.get(`/v1/shows/${s.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(s);

    // explicit settings are kept
    const opens = fromNow(86_400_000);
    const s2 = await show({
      event_id: e.id, hall_id: h.id, starts_at: starts, sale_opens_at: opens, currency: 'INR',
      price_tiers: { standard: 1, premium: 2, unused: 3 }, hold_ttl_seconds: 1, per_user_limit: 1, cancel_until_minutes_before: 0, waiting_room: true,
    });
    expect(s2).toMatchObject({ hold_ttl_seconds: 1, per_user_limit: 1, cancel_until_minutes_before: 0, waiting_room: true, price_tiers: { standard: 1, premium: 2, unused: 3 } });
    expect(Date.parse(s2.sale_opens_at)).toBe(Date.parse(opens));
  });

  it('PATCH changes settings and answers the show object', async () => {
    const v = await venue({ name: 'Kino am Kanal', city: 'Berlin', timezone: 'Europe/Berlin' });
    const h = await hall(v.id, [{ row: 'A', seats: 4, tier: 'standard' }]);
    const e = await event('Northern Lights');
    const e2 = await event('Paper Moons');
    const s = await show({ event_id: e.id, hall_id: h.id, starts_at: fromNow(3 * 86_400_000), currency: 'EUR', price_tiers: { standard: 1100 } });

    const starts = fromNow(4 * 86_400_000);
    const opens = fromNow(2 * 86_400_000);
    const p = await t.http.patch(`/v1/admin/shows/${s.id}`, {
      event_id: e2.id, starts_at: starts, sale_opens_at: opens, price_tiers: { standard: 1500 },
      hold_ttl_seconds: 300, per_user_limit: 6, cancel_until_minutes_before: 60, waiting_room: true,
    }, t.adminToken);
    expect(p.status, p.text).toBe(200);
    expect(Object.keys(p.body).sort()).toEqual(SHOW_KEYS);
    expect(p.body).toMatchObject({
      id: s.id, event: { id: e2.id, title: 'Paper Moons' }, hall: s.hall, venue: s.venue, currency: 'EUR',
      price_tiers: { standard: 1500 }, hold_ttl_seconds: 300, per_user_limit: 6, cancel_until_minutes_before: 60, waiting_room: true,
    });
    expect(Date.parse(p.body.starts_at)).toBe(Date.parse(starts));
    expect(Date.parse(p.body.sale_opens_at)).toBe(Date.parse(opens));
    expect((await t.http.get(`/v1/shows/${s.id}`)).body).toEqual(p.body);

    // one field alone leaves the others as they were
    const one = await t.http.patch(`/v1/admin/shows/${s.id}`, { per_user_limit: 2 }, t.adminToken);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ ...p.body, per_user_limit: 2 });

    // the seat map prices follow the new price
    const map = await t.http.get(`/v1/shows/${s.id}/seats`);
    expect(map.body.seats.every((x: { price: number }) => x.price === 1500)).toBe(true);
  });
});

describe('search', () => {
  // A date well in the future; 23:30 UTC that day is the next day in Kolkata (+05:30)
  // and the same day in New York (-05:00 or -04:00).
  const day = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
  const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const starts = `${day}T23:30:00Z`;
  let kolkata: string;
  let newYork: string;
  let lisbon: string;
  let film: { id: string };
  let concert: { id: string };

  beforeAll(async () => {
    film = await event('Search Film');
    concert = await event('Search Concert', 'concert');
    const vk = await venue({ name: 'Searchable Pune', city: 'SearchPune', timezone: 'Asia/Kolkata' });
    const vn = await venue({ name: 'Searchable NY', city: 'Search New York', timezone: 'America/New_York' });
    const vl = await venue({ name: 'Searchable Lisbon', city: 'SearchLisbon', timezone: 'Europe/Lisbon' });
    const rows = [{ row: 'A', seats: 2, tier: 'standard' }];
    const [hk, hn, hl] = [await hall(vk.id, rows), await hall(vn.id, rows), await hall(vl.id, rows)];
    const base = { starts_at: starts, currency: 'EUR', price_tiers: { standard: 100 } };
    kolkata = (await show({ ...base, event_id: film.id, hall_id: hk.id })).id;
    newYork = (await show({ ...base, event_id: film.id, hall_id: hn.id })).id;
    lisbon = (await show({ ...base, event_id: concert.id, hall_id: hl.id })).id;
  });

  it('by city, case-insensitively', async () => {
    for (const city of ['SearchPune', 'searchpune', 'SEARCHPUNE']) {
      const r = await t.http.get(`/v1/shows?city=${encodeURIComponent(city)}`);
      expect(r.status).toBe(200);
      expect(ids(r)).toEqual([kolkata]);
    }
    const ny = await t.http.get(`/v1/shows?city=${encodeURIComponent('search new york')}`);
    expect(ids(ny)).toEqual([newYork]);
    expect(Object.keys(ny.body.shows[0]).sort()).toEqual(SHOW_KEYS);
    expect(ids(await t.http.get('/v1/shows?city=NoSuchCity'))).toEqual([]);
  });

  it('by event and by its alias movie', async () => {
    const byEvent = await t.http.get(`/v1/shows?event=${film.id}`);
    expect(byEvent.status).toBe(200);
    expect(ids(byEvent).sort()).toEqual([kolkata, newYork].sort());
    const byMovie = await t.http.get(`/v1/shows?movie=${film.id}`);
    expect(ids(byMovie).sort()).toEqual([kolkata, newYork].sort());
    expect(ids(await t.http.get(`/v1/shows?movie=${concert.id}`))).toEqual([lisbon]);
    expect(ids(await t.http.get(`/v1/shows?event=${film.id}&city=searchlisbon`))).toEqual([]);
    expect(ids(await t.http.get('/v1/shows?event=evt_000000000000000000000000'))).toEqual([]);
  });

  it("by date in the venue's timezone", async () => {
    // 23:30Z is 05:00 the next day in Kolkata, 18:30/19:30 the same day in New York, 23:30 in Lisbon (winter).
    const onDay = ids(await t.http.get(`/v1/shows?date=${day}`));
    const onNextDay = ids(await t.http.get(`/v1/shows?date=${nextDay}`));
    expect(onDay).toContain(newYork);
    expect(onDay).not.toContain(kolkata);
    expect(onNextDay).toContain(kolkata);
    expect(onNextDay).not.toContain(newYork);
    expect(ids(await t.http.get(`/v1/shows?date=${nextDay}&city=searchpune`))).toEqual([kolkata]);
    expect(ids(await t.http.get(`/v1/shows?date=${day}&city=searchpune`))).toEqual([]);
    expect(ids(await t.http.get(`/v1/shows?date=${day}&city=search%20new%20york&movie=${film.id}`))).toEqual([newYork]);
  });
});

describe('hall layouts', () => {
  it('sections give seat ids "101-F7"; explicit seat numbers and accessible seats are kept', async () => {
    const v = await venue({ name: 'Layout Arena', city: 'Layoutville' });
    const h = await hall(v.id, [
      { row: 'F', seats: 10, tier: 'lower', section: '101', accessible: [1, 2] },
      { row: 'F', seats: 10, tier: 'lower', section: '102' },
      { row: 'A', seats: [1, 3, 5, 10], tier: 'box', accessible: [3] },
    ]);
    expect(h.seat_count, 'two sections of 10 plus 4 listed seats').toBe(24);
    const e = await event('Layout Gig', 'concert');
    const s = await show({ event_id: e.id, hall_id: h.id, starts_at: fromNow(86_400_000), currency: 'EUR', price_tiers: { lower: 5000, box: 9000 } });

    const map = await t.http.get(`/v1/shows/${s.id}/seats`);
    expect(map.status).toBe(200);
    const seats = new Map<string, Record<string, unknown>>(map.body.seats.map((x: { seat: string }) => [x.seat, x]));
    expect(seats.size).toBe(24);
    expect(seats.get('101-F7')).toMatchObject({ seat: '101-F7', status: 'available', tier: 'lower', price: 5000, row: 'F', number: 7, section: '101' });
    expect(seats.get('102-F7')).toMatchObject({ section: '102', row: 'F', number: 7 });
    expect(seats.has('F7')).toBe(false);
    expect(seats.get('A3')).toMatchObject({ seat: 'A3', tier: 'box', price: 9000, row: 'A', number: 3 });
    expect(seats.get('A3')!.section).toBeUndefined();
    expect([...seats.keys()].filter((k) => k.startsWith('A')).sort()).toEqual(['A1', 'A10', 'A3', 'A5']);

    const accessible = await t.service.ctx.db.query<{ seat_id: string }>(
      'select seat_id from hall_seats where hall_id = $1 and accessible order by seat_id', [h.id]);
    expect(accessible.rows.map((r) => r.seat_id)).toEqual(['101-F1', '101-F2', 'A3']);
    const flagged = map.body.seats.filter((x: { accessible?: boolean }) => x.accessible).map((x: { seat: string }) => x.seat).sort();
    expect(flagged).toEqual(['101-F1', '101-F2', 'A3']);

    const [buyer] = await registerBuyers(t, 1);
    const held = await t.http.post(`/v1/shows/${s.id}/holds`, { seats: ['101-F7', 'A10'] }, buyer!.token);
    expect(held.status, held.text).toBe(201);
    expect(held.body).toMatchObject({ seats: ['101-F7', 'A10'], amount: 14000, currency: 'EUR' });
    expectProblem(await t.http.post(`/v1/shows/${s.id}/holds`, { seats: ['A2'] }, buyer!.token), 400, 'VALIDATION_FAILED');
    expectProblem(await t.http.post(`/v1/shows/${s.id}/holds`, { seats: ['F7'] }, buyer!.token), 400, 'VALIDATION_FAILED');
  });

  it('a 60,000-seat stadium and two shows of it are created in a few seconds', async () => {
    const rows: unknown[] = [];
    for (const bowl of [100, 200]) {
      for (let s = 1; s <= 12; s++) {
        for (const row of 'ABCDEFGHIJKLMNOPQRSTUVWXY') {
          rows.push({ row, seats: 100, tier: bowl === 100 ? 'lower' : 'upper', section: String(bowl + s), ...(row === 'A' ? { accessible: [1, 2, 3, 4] } : {}) });
        }
      }
    }
    const bodySize = Buffer.byteLength(JSON.stringify({ venue_id: 'x', name: 'Main bowl', layout: { rows } }));
    expect(bodySize).toBeLessThan(4 * 1024 * 1024);

    const started = performance.now();
    const v = await venue({ name: 'Estádio', city: 'Stadium City', timezone: 'Europe/Lisbon' });
    const h = await hall(v.id, rows, 'Main bowl');
    const e = await event('Aurora Live', 'concert');
    const base = { event_id: e.id, hall_id: h.id, currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 }, per_user_limit: 6 };
    const s1 = await show({ ...base, starts_at: fromNow(7 * 86_400_000) });
    const s2 = await show({ ...base, starts_at: fromNow(8 * 86_400_000) });
    const seconds = (performance.now() - started) / 1000;
    console.log(`60,000-seat hall (${(bodySize / 1024).toFixed(0)} KiB layout) + 2 shows created in ${seconds.toFixed(2)} s`);
    expect(seconds).toBeLessThan(20);

    expect(h.seat_count).toBe(60_000);
    const counts = await t.service.ctx.db.query<{ show_id: string; n: number }>(
      'select show_id, count(*)::int as n from show_seats where show_id = any($1) group by show_id order by show_id', [[s1.id, s2.id]]);
    expect(counts.rows.map((r) => r.n)).toEqual([60_000, 60_000]);

    const [buyer] = await registerBuyers(t, 1);
    const held = await t.http.post(`/v1/shows/${s2.id}/holds`, { seats: ['101-A1', '212-Y100'] }, buyer!.token);
    expect(held.status, held.text).toBe(201);
    expect(held.body.amount).toBe(9500 + 6500);
  });
});
