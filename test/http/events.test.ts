// Finding things: GET /v1/events with city, q and date; q (title words) on
// GET /v1/shows; unknown query parameters refused on every route; the operators'
// paged lists of venues, halls, events and shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { expectProblem } from './helpers.js';

let t: TestService;
let buyer: Buyer;
beforeAll(async () => {
  t = await startTestService({ sweeper: false });
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
});
afterAll(async () => { await t?.close(); });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** An instant `days` days ahead at hh:mm UTC, so that local dates are known. */
const at = (days: number, hhmm: string) => `${new Date(Date.now() + days * DAY).toISOString().slice(0, 10)}T${hhmm}:00.000Z`;
const dayOf = (iso: string, plusDays = 0) => new Date(Date.parse(iso) + plusDays * DAY).toISOString().slice(0, 10);

async function created<T = Record<string, unknown>>(path: string, body: unknown): Promise<T> {
  const r = await t.http.post(path, body, t.adminToken);
  expect(r.status, r.text).toBe(201);
  return r.body as T;
}
const venue = (name: string, city: string, timezone: string) => created<{ id: string }>('/v1/admin/venues', { name, city, timezone });
const hall = (venueId: string, name = 'Screen') => created<{ id: string }>('/v1/admin/halls', { venue_id: venueId, name, layout: { rows: [{ row: 'A', seats: 2, tier: 'standard' }] } });
const event = (title: string, kind = 'film') => created<{ id: string }>('/v1/admin/events', { title, kind });
const show = (eventId: string, hallId: string, startsAt: string, extra: Record<string, unknown> = {}) =>
  created<{ id: string; starts_at: string }>('/v1/admin/shows', { event_id: eventId, hall_id: hallId, starts_at: startsAt, currency: 'EUR', price_tiers: { standard: 100 }, ...extra });

type Listed = { id: string; title: string; kind: string; next_show_at: string };
async function events(query: string): Promise<Listed[]> {
  const r = await t.http.get(`/v1/events${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body.events as Listed[];
}
/** id → next_show_at in milliseconds, for exact comparisons. */
const nextShows = (list: Listed[]) => Object.fromEntries(list.map((e) => [e.id, Date.parse(e.next_show_at)]));

describe('GET /v1/events and q', () => {
  // Evtown (UTC) and Kolkville (Asia/Kolkata, +05:30).
  const s = {} as Record<string, { id: string; starts_at: string }>;
  const e = {} as Record<'matinee' | 'idol' | 'knives' | 'past' | 'presale' | 'empty', { id: string }>;
  beforeAll(async () => {
    const evtown = await hall((await venue('Evtown Picture House', 'Evtown', 'UTC')).id);
    const kolk = await hall((await venue('Kolkville Talkies', 'Kolkville', 'Asia/Kolkata')).id);
    e.matinee = await event('The Long Matinee');
    e.idol = await event('Matinee Idol!');
    e.knives = await event('Night of the Long Knives', 'concert');
    e.past = await event('Yesterday Once More');
    e.presale = await event('Coming Soon: Presale');
    e.empty = await event('Nothing Scheduled');
    s.matineePast = await show(e.matinee.id, evtown.id, new Date(Date.now() - 2 * HOUR).toISOString());
    s.matineeEvtown = await show(e.matinee.id, evtown.id, at(3, '12:00'));
    // 20:00Z is 01:30 the next day in Kolkata.
    s.matineeKolk = await show(e.matinee.id, kolk.id, at(5, '20:00'));
    s.idolEvtown = await show(e.idol.id, evtown.id, at(4, '12:00'));
    s.knivesKolk = await show(e.knives.id, kolk.id, at(2, '12:00'));
    s.pastOnly = await show(e.past.id, evtown.id, new Date(Date.now() - DAY).toISOString());
    s.presale = await show(e.presale.id, evtown.id, at(7, '12:00'), { sale_opens_at: at(1, '09:00') });
  });

  it('lists events with a show still to come, sale open or not yet, with the earliest such show, soonest first', async () => {
    const all = await events('');
    expect(all.map((x) => x.id)).toEqual([e.knives.id, e.matinee.id, e.idol.id, e.presale.id]);
    for (const x of all) expect(Object.keys(x).sort()).toEqual(['id', 'kind', 'next_show_at', 'title']);
    expect(all[0]).toMatchObject({ title: 'Night of the Long Knives', kind: 'concert' });
    // the past show of The Long Matinee does not count; the not-yet-on-sale show does
    expect(nextShows(all)).toEqual({
      [e.knives.id]: Date.parse(s.knivesKolk!.starts_at),
      [e.matinee.id]: Date.parse(s.matineeEvtown!.starts_at),
      [e.idol.id]: Date.parse(s.idolEvtown!.starts_at),
      [e.presale.id]: Date.parse(s.presale!.starts_at),
    });
    expect(all[1]!.next_show_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('by city, in any case: next_show_at is the earliest show in that city', async () => {
    expect(nextShows(await events('?city=EVTOWN'))).toEqual({
      [e.matinee.id]: Date.parse(s.matineeEvtown!.starts_at),
      [e.idol.id]: Date.parse(s.idolEvtown!.starts_at),
      [e.presale.id]: Date.parse(s.presale!.starts_at),
    });
    expect(nextShows(await events('?city=kolkville'))).toEqual({
      [e.knives.id]: Date.parse(s.knivesKolk!.starts_at),
      [e.matinee.id]: Date.parse(s.matineeKolk!.starts_at),
    });
    expect(await events('?city=Nowhere')).toEqual([]);
  });

  it("by date in the venue's timezone", async () => {
    const kolkataDay = dayOf(s.matineeKolk!.starts_at, 1);
    expect(nextShows(await events(`?date=${kolkataDay}`))).toEqual({ [e.matinee.id]: Date.parse(s.matineeKolk!.starts_at) });
    expect(await events(`?date=${dayOf(s.matineeKolk!.starts_at)}`)).toEqual([]);
    expect(nextShows(await events(`?date=${dayOf(s.matineeEvtown!.starts_at)}`))).toEqual({ [e.matinee.id]: Date.parse(s.matineeEvtown!.starts_at) });
    // the day of a show that has started: nothing to come
    expect(await events(`?date=${dayOf(s.pastOnly!.starts_at)}&q=yesterday`)).toEqual([]);
  });

  it('q: every word of it begins a word of the title, in any case; the middles of words do not match', async () => {
    const ids = async (q: string) => (await events(`?q=${encodeURIComponent(q)}`)).map((x) => x.id).sort();
    expect(await ids('matinee')).toEqual([e.matinee.id, e.idol.id].sort());
    expect(await ids('MATINEE')).toEqual([e.matinee.id, e.idol.id].sort());
    expect(await ids('long Matinee')).toEqual([e.matinee.id]);
    expect(await ids('  matinee   LONG ')).toEqual([e.matinee.id]);
    expect(await ids('long')).toEqual([e.matinee.id, e.knives.id].sort());
    expect(await ids('the')).toEqual([e.matinee.id, e.knives.id].sort());
    expect(await ids('idol!')).toEqual([e.idol.id]);
    expect(await ids('presale coming')).toEqual([e.presale.id]);
    expect(await ids('mat')).toEqual([e.matinee.id, e.idol.id].sort());
    expect(await ids('inee')).toEqual([]);
    // one letter extra: a typo, forgiven since nothing matches as typed
    expect(await ids('matinees')).toEqual([e.matinee.id, e.idol.id].sort());
    expect(await ids('matinee knives')).toEqual([]);
    expect(await ids('long matinee idol')).toEqual([]);
    expect(await ids('yesterday')).toEqual([]);
    expect(await ids('scheduled')).toEqual([]);
  });

  it('filters combine', async () => {
    expect(nextShows(await events('?q=long&city=Kolkville'))).toEqual({
      [e.knives.id]: Date.parse(s.knivesKolk!.starts_at),
      [e.matinee.id]: Date.parse(s.matineeKolk!.starts_at),
    });
    expect(nextShows(await events('?q=long&city=evtown'))).toEqual({ [e.matinee.id]: Date.parse(s.matineeEvtown!.starts_at) });
    const kolkataDay = dayOf(s.matineeKolk!.starts_at, 1);
    expect((await events(`?q=matinee&city=kolkville&date=${kolkataDay}`)).map((x) => x.id)).toEqual([e.matinee.id]);
    expect(await events(`?q=matinee&city=evtown&date=${kolkataDay}`)).toEqual([]);
    expect(await events(`?q=idol&city=kolkville`)).toEqual([]);
  });

  it('GET /v1/shows takes q alongside city, event and date', async () => {
    const shows = async (query: string) => {
      const r = await t.http.get(`/v1/shows${query}`);
      expect(r.status, r.text).toBe(200);
      return (r.body.shows as { id: string }[]).map((x) => x.id);
    };
    expect(await shows('?q=matinee')).toEqual([s.matineeEvtown!.id, s.idolEvtown!.id, s.matineeKolk!.id]);
    expect(await shows('?q=Matinee&city=evtown')).toEqual([s.matineeEvtown!.id, s.idolEvtown!.id]);
    expect(await shows(`?q=long&movie=${e.knives.id}`)).toEqual([s.knivesKolk!.id]);
    expect(await shows(`?q=idol&event=${e.matinee.id}`)).toEqual([]);
    expect(await shows(`?q=matinee&date=${dayOf(s.matineeKolk!.starts_at, 1)}`)).toEqual([s.matineeKolk!.id]);
    expect(await shows('?q=mat')).toEqual([s.matineeEvtown!.id, s.idolEvtown!.id, s.matineeKolk!.id]);
    expect(await shows('?q=inee')).toEqual([]);
    expect(await shows('?q=long%20matinee%20idol')).toEqual([]);
  });

  it('a q without a letter or digit, or too long, is a 400', async () => {
    for (const path of ['/v1/events?q=', '/v1/events?q=%21%21%21', `/v1/events?q=${'a'.repeat(201)}`, '/v1/shows?q=%20%20', '/v1/events?q=a&q=b']) {
      expectProblem(await t.http.get(path), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('unknown query parameters', () => {
  const unknownParameter = (r: Awaited<ReturnType<TestService['http']['get']>>, ...names: string[]) => {
    expectProblem(r, 400, 'VALIDATION_FAILED');
    const paths = (r.body.errors as { path: string; message: string }[]).map((x) => x.path).sort();
    expect(paths, r.text).toEqual(names.map((n) => `querystring:/${n}`).sort());
    for (const n of names) expect(r.text).toContain(`unknown query parameter \\"${n}\\"`);
  };
  let showId: string;
  let holdId: string;
  beforeAll(async () => {
    const h = await hall((await venue('Param Hall', 'Paramville', 'UTC')).id);
    showId = (await show((await event('Param Film')).id, h.id, at(3, '18:00'))).id;
    const hold = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, buyer.token);
    expect(hold.status, hold.text).toBe(201);
    holdId = hold.body.hold_id;
  });

  it('are a 400 VALIDATION_FAILED naming each of them, on public, user and admin routes', async () => {
    unknownParameter(await t.http.get('/v1/shows?film=x'), 'film');
    unknownParameter(await t.http.get('/v1/shows?city=Paramville&film=x&year=1999'), 'film', 'year');
    unknownParameter(await t.http.get('/v1/events?film=x'), 'film');
    unknownParameter(await t.http.get(`/v1/shows/${showId}?film=x`), 'film');
    unknownParameter(await t.http.get(`/v1/shows/${showId}/seats?film=x`), 'film');
    unknownParameter(await t.http.get(`/v1/holds/${holdId}?verbose=1`, buyer.token), 'verbose');
    unknownParameter(await t.http.delete(`/v1/holds/${holdId}?force=1`, buyer.token), 'force');
    unknownParameter(await t.http.get('/v1/bookings?page=2', buyer.token), 'page');
    unknownParameter(await t.http.get('/v1/tickets/tkt_x/qr.svg?key=k&size=9'), 'size');
    for (const list of ['venues', 'halls', 'events', 'shows']) {
      unknownParameter(await t.http.get(`/v1/admin/${list}?page=2`, t.adminToken), 'page');
    }
    unknownParameter(await t.http.get('/healthz?x=1'), 'x');
    // the hold was not released by the refused DELETE
    expect((await t.http.get(`/v1/holds/${holdId}`, buyer.token)).body.status).toBe('active');
  });

  it('also on a route that reads its own body (POST /v1/bookings)', async () => {
    const r = await t.http.post('/v1/bookings?coupon=FREE', { hold_id: holdId, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': 'param-test-1' });
    unknownParameter(r, 'coupon');
  });

  it('sign-in and roles come first: 401/403 before the 400', async () => {
    expectProblem(await t.http.get('/v1/admin/venues?page=2'), 401, 'UNAUTHENTICATED');
    expectProblem(await t.http.get('/v1/admin/venues?page=2', buyer.token), 403, 'FORBIDDEN');
    expectProblem(await t.http.get(`/v1/holds/${holdId}?verbose=1`), 401, 'UNAUTHENTICATED');
  });

  it('declared parameters still work, and /docs still renders', async () => {
    expect((await t.http.get('/v1/shows?city=Paramville')).body.shows.map((x: { id: string }) => x.id)).toEqual([showId]);
    expectProblem(await t.http.get('/v1/tickets/tkt_nope/qr.svg?key=abc'), 404, 'NOT_FOUND');
    const docs = await t.http.get('/docs');
    expect([200, 302]).toContain(docs.status);
    expect((await t.http.get('/docs/')).text).toContain('swagger');
    expect((await t.http.get('/docs/static/swagger-initializer.js')).status).toBe(200);
    expect((await t.http.get('/docs/static/swagger-ui.css?v=5')).status).toBe(200);
    expect((await t.http.get('/docs/json')).status).toBe(200);
    expect((await t.http.get('/docs/static/oauth2-redirect.html?code=abc&state=xyz')).status).toBe(200);
    const doc = await t.http.get('/openapi.json');
    expect(doc.status).toBe(200);
    const events = doc.body.paths['/v1/events'].get;
    expect(events.summary).toBeTruthy();
    expect(events.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['city', 'date', 'q']);
    for (const p of events.parameters) expect(p.description ?? p.schema?.description, p.name).toBeTruthy();
    expect(events.responses['200'].description).toMatch(/not started/);
    const venues = doc.body.paths['/v1/admin/venues'].get;
    expect(venues.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['cursor', 'limit']);
    // Plus the answers any route may give (431, 500, 503: src/http/openapi.ts).
    expect(Object.keys(venues.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });
});

describe("operators' lists", () => {
  type Paged = { next_cursor: string | null } & Record<string, unknown>;
  /** Follows next_cursor from the first page to the last; every page within the limit. */
  async function allPages(list: string, key: string, query: string, limit: number): Promise<{ items: { id: string }[]; pages: number }> {
    const items: { id: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = query ? '&' : '';
      const r = await t.http.get(`/v1/admin/${list}?${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, t.adminToken);
      expect(r.status, r.text).toBe(200);
      const body = r.body as Paged;
      expect(Object.keys(body).sort()).toEqual([key, 'next_cursor'].sort());
      const page = body[key] as { id: string }[];
      expect(page.length).toBeLessThanOrEqual(limit);
      if (body.next_cursor !== null) expect(page.length).toBe(limit);
      items.push(...page);
      cursor = body.next_cursor;
      pages++;
      expect(pages).toBeLessThan(100);
    } while (cursor);
    return { items, pages };
  }
  const idsIn = async (sql: string, params: unknown[] = []) =>
    (await t.service.ctx.db.query<{ id: string }>(sql, params)).rows.map((r) => r.id);

  let venues: { id: string }[];
  let halls: { id: string; venue_id: string }[];
  let shows: { id: string }[];
  let films: { id: string }[];
  beforeAll(async () => {
    venues = [];
    for (let i = 0; i < 7; i++) venues.push(await created('/v1/admin/venues', { name: `List Venue ${i}`, city: 'Listville', timezone: 'Europe/Berlin' }));
    halls = [];
    for (let i = 0; i < 5; i++) halls.push(await created('/v1/admin/halls', { venue_id: venues[0]!.id, name: `List Hall ${i}`, layout: { rows: [{ row: 'A', seats: 3, tier: 'standard' }] } }));
    halls.push(await created('/v1/admin/halls', { venue_id: venues[1]!.id, name: 'Other Hall', layout: { rows: [{ row: 'A', seats: 3, tier: 'standard' }] } }));
    films = [];
    for (let i = 0; i < 52; i++) films.push(await created('/v1/admin/events', { title: `List Film ${i}`, kind: 'film', duration_minutes: 90 + i }));
    shows = [];
    for (let i = 0; i < 5; i++) shows.push(await show(films[i % 2]!.id, halls[i]!.id, i === 0 ? new Date(Date.now() - DAY).toISOString() : at(i, '19:00')));
  });

  it('page through every venue, hall, event and show: each once, in creation order, as the create answers shaped them', async () => {
    const v = await allPages('venues', 'venues', '', 3);
    expect(v.items.map((x) => x.id)).toEqual(await idsIn('select id from venues order by created_at, id'));
    expect(new Set(v.items.map((x) => x.id)).size).toBe(v.items.length);
    expect(v.pages).toBeGreaterThan(3);
    expect(v.items.find((x) => x.id === venues[3]!.id)).toEqual(venues[3]);

    const h = await allPages('halls', 'halls', '', 4);
    expect(h.items.map((x) => x.id)).toEqual(await idsIn('select id from halls order by created_at, id'));
    expect(h.items.find((x) => x.id === halls[2]!.id)).toEqual(halls[2]);

    const e = await allPages('events', 'events', '', 7);
    expect(e.items.map((x) => x.id)).toEqual(await idsIn('select id from events order by created_at, id'));
    expect(e.items.find((x) => x.id === films[10]!.id)).toEqual(films[10]);

    const s = await allPages('shows', 'shows', '', 2);
    expect(s.items.map((x) => x.id)).toEqual(await idsIn('select id from shows order by created_at, id'));
    // the past show is listed too; an item is the show object
    expect(s.items.find((x) => x.id === shows[0]!.id)).toEqual(shows[0]);
  });

  it('filters: halls of a venue; shows of a venue, hall or event', async () => {
    const mine = await allPages('halls', 'halls', `venue_id=${venues[0]!.id}`, 2);
    expect(mine.items).toEqual(halls.slice(0, 5));
    expect((await allPages('halls', 'halls', `venue_id=${venues[6]!.id}`, 2)).items).toEqual([]);
    expect((await allPages('shows', 'shows', `venue_id=${venues[0]!.id}`, 2)).items.map((x) => x.id)).toEqual(shows.map((x) => x.id));
    expect((await allPages('shows', 'shows', `hall_id=${halls[3]!.id}`, 2)).items.map((x) => x.id)).toEqual([shows[3]!.id]);
    expect((await allPages('shows', 'shows', `event_id=${films[0]!.id}`, 2)).items.map((x) => x.id)).toEqual([shows[0]!.id, shows[2]!.id, shows[4]!.id]);
    expect((await allPages('shows', 'shows', `event_id=${films[1]!.id}&venue_id=${venues[0]!.id}`, 5)).items.map((x) => x.id)).toEqual([shows[1]!.id, shows[3]!.id]);
  });

  it('50 a page by default; an item created while paging comes on a later page', async () => {
    const first = await t.http.get('/v1/admin/events', t.adminToken);
    expect(first.status).toBe(200);
    expect(first.body.events).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const late = await created<{ id: string }>('/v1/admin/events', { title: 'Late Film' });
    const rest = await t.http.get(`/v1/admin/events?limit=200&cursor=${encodeURIComponent(first.body.next_cursor)}`, t.adminToken);
    expect(rest.body.next_cursor).toBeNull();
    const seen = [...first.body.events, ...rest.body.events].map((x: { id: string }) => x.id);
    expect(seen).toEqual(await idsIn('select id from events order by created_at, id'));
    expect(seen.at(-1)).toBe(late.id);
  });

  it('limit is 1..200; a cursor must be one a list gave', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'limit=-1', 'limit=1.5', 'cursor=nonsense', `cursor=${Buffer.from('2026-01-01 x').toString('base64url')}`]) {
      expectProblem(await t.http.get(`/v1/admin/venues?${q}`, t.adminToken), 400, 'VALIDATION_FAILED');
    }
    const bad = await t.http.get('/v1/admin/shows?cursor=nonsense', t.adminToken);
    expect(bad.body.errors).toEqual([{ path: 'querystring:/cursor', message: expect.any(String) }]);
    const one = await t.http.get('/v1/admin/venues?limit=200', t.adminToken);
    expect(one.status).toBe(200);
    expect(one.body.next_cursor).toBeNull();
  });

  it('one hall, with the price tiers its seats use and their counts', async () => {
    const mixed = await created<{ id: string; venue_id: string; name: string; seat_count: number }>('/v1/admin/halls', {
      venue_id: venues[2]!.id, name: 'Tiered Hall',
      layout: { rows: [{ row: 'A', seats: 4, tier: 'premium' }, { row: 'B', seats: [1, 3, 5], tier: 'standard' }, { row: 'C', seats: 2, tier: 'standard', section: '101' }] },
    });
    const r = await t.http.get(`/v1/admin/halls/${mixed.id}`, t.adminToken);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ ...mixed, tiers: [{ tier: 'premium', seats: 4 }, { tier: 'standard', seats: 5 }] });
    expectProblem(await t.http.get('/v1/admin/halls/hall_nope', t.adminToken), 404, 'NOT_FOUND');
    expectProblem(await t.http.get(`/v1/admin/halls/${mixed.id}`, buyer.token), 403, 'FORBIDDEN');
  });

  it('admin only: 401 without a token, 403 for a buyer', async () => {
    for (const list of ['venues', 'halls', 'events', 'shows']) {
      expectProblem(await t.http.get(`/v1/admin/${list}`), 401, 'UNAUTHENTICATED');
      expectProblem(await t.http.get(`/v1/admin/${list}`, buyer.token), 403, 'FORBIDDEN');
    }
  });
});
