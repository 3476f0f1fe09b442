// A table of malformed, unauthorised and refused requests. Each must be answered
// 4xx application/problem+json with the contract's code, and none may change any
// data: the whole database is fingerprinted before and after the table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { HttpAnswer } from '../support/http.js';
import { expectOneOfProblems, expectProblem, fromNow, signUserToken, tokenSecret } from './helpers.js';

type Show = Awaited<ReturnType<typeof createShow>>;

interface Row {
  name: string;
  send: () => Promise<HttpAnswer>;
  /** Expected status and code; several pairs when the contract allows either. */
  expect: readonly [number, string] | readonly (readonly [number, string])[];
  /** Extra fields the problem must carry. */
  match?: () => Record<string, unknown>;
}

let t: TestService;
let open: Show; // on sale, per_user_limit 4; buyer A holds A1
let notOpen: Show; // sale opens in 3 days; buyer A holds A1 (taken before the sale was moved)
let closed: Show; // starts_at in the past
let queued: Show; // waiting room, on sale
let queuedNotOpen: Show; // waiting room, sale not open yet
let limited: Show; // per_user_limit 2; A holds A1+A2 (at the limit), B holds B1
let a: Buyer;
let b: Buyer;
let staffToken: string;
let holdOfA: string;
let otherHall: string;
let key: Uint8Array;
let tokens: { expired: string; otherSecret: string; forged: string; tampered: string; algNone: string; ghost: string; wrongAudience: string; noAudience: string; noIssuer: string };
let before: Record<string, string>;

const DUP_EMAIL = 'taken-address@example.test';

/**
 * Every table's row count and content hash (all tables of the schema, so tables
 * added by later migrations are covered too). Sequences are left out on purpose:
 * a gap in a sequence is not data.
 */
async function fingerprint(): Promise<Record<string, string>> {
  const db = t.service.ctx.db;
  const tables = await db.query<{ tablename: string }>(
    "select tablename from pg_tables where schemaname = 'public' order by tablename",
  );
  const out: Record<string, string> = {};
  for (const { tablename } of tables.rows) {
    const r = await db.query<{ n: number; h: string | null }>(
      `select count(*)::int as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from "${tablename}" x`,
    );
    out[tablename] = `${r.rows[0]!.n}:${r.rows[0]!.h}`;
  }
  return out;
}

const json = { 'content-type': 'application/json' };
const hold = (show: () => string, body: unknown, token?: () => string | undefined, headers?: Record<string, string>) =>
  () => t.http.send('POST', `/v1/shows/${encodeURIComponent(show())}/holds`, { body, token: token?.(), headers });
const holdRaw = (show: () => string, raw: string | Buffer, headers: Record<string, string>, token?: () => string) =>
  () => t.http.send('POST', `/v1/shows/${encodeURIComponent(show())}/holds`, { raw, headers, token: token?.() });
const asA = () => a.token;
const asB = () => b.token;

function validShow(over: Record<string, unknown> = {}) {
  return {
    event_id: open.eventId, hall_id: open.hallId, starts_at: fromNow(10 * 86_400_000), currency: 'EUR',
    price_tiers: { standard: 1000 }, ...over,
  };
}

const VALIDATION: readonly [number, string] = [400, 'VALIDATION_FAILED'];
// A body in another media type than JSON: 415, with the contract's VALIDATION_FAILED.
const MEDIA_TYPE: readonly [number, string] = [415, 'VALIDATION_FAILED'];
const namesJson = () => ({ detail: expect.stringContaining('application/json') });
const NOT_FOUND: readonly [number, string] = [404, 'NOT_FOUND'];
const UNAUTH: readonly [number, string] = [401, 'UNAUTHENTICATED'];
const FORBIDDEN: readonly [number, string] = [403, 'FORBIDDEN'];

const INJECTIONS = ["' OR 1=1 --", "F7'; drop table show_seats; --", 'Ф7', '🎟️A1', 'A1\u0000', 'A'.repeat(5000)];

const rows: Row[] = [
  // --- authentication and roles -------------------------------------------------
  { name: 'hold without a token', send: hold(() => open.showId, { seats: ['B1'] }), expect: UNAUTH },
  { name: 'hold with a forged token (signature changed)', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.forged), expect: UNAUTH },
  { name: 'admin route with a payload changed to role admin (old signature)', send: () => t.http.post('/v1/admin/venues', { name: 'X', city: 'Y' }, tokens.tampered), expect: UNAUTH },
  { name: 'hold with a token signed with another secret', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.otherSecret), expect: UNAUTH },
  { name: 'hold with an expired token (instance secret)', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.expired), expect: UNAUTH },
  { name: 'hold with a token for another audience (instance secret)', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.wrongAudience), expect: UNAUTH },
  { name: 'hold with a token without an audience (instance secret)', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.noAudience), expect: UNAUTH },
  { name: 'hold with a token without an issuer (instance secret)', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.noIssuer), expect: UNAUTH },
  { name: 'hold with an unsigned alg=none token', send: hold(() => open.showId, { seats: ['B1'] }, () => tokens.algNone), expect: UNAUTH },
  { name: 'hold with a validly signed token of an account that does not exist', send: hold(() => open.showId, { seats: ['B2'] }, () => tokens.ghost), expect: UNAUTH },
  { name: 'Authorization: Basic instead of Bearer', send: () => t.http.send('POST', `/v1/shows/${open.showId}/holds`, { body: { seats: ['B1'] }, headers: { authorization: 'Basic dXNlcjpwYXNz' } }), expect: UNAUTH },
  { name: 'Authorization: "Bearer" without a token', send: () => t.http.send('GET', '/v1/holds/hold_x', { headers: { authorization: 'Bearer ' } }), expect: UNAUTH },
  { name: 'GET hold without a token', send: () => t.http.get(`/v1/holds/${holdOfA}`), expect: UNAUTH },
  { name: 'DELETE hold without a token', send: () => t.http.delete(`/v1/holds/${holdOfA}`), expect: UNAUTH },
  { name: 'admin route without a token and with a bad body', send: () => t.http.post('/v1/admin/venues', { name: 7 }), expect: UNAUTH },
  { name: 'user token on POST /v1/admin/venues', send: () => t.http.post('/v1/admin/venues', { name: 'X', city: 'Y' }, a.token), expect: FORBIDDEN },
  { name: 'user token on POST /v1/admin/shows with a bad body (403 before 400)', send: () => t.http.post('/v1/admin/shows', { nope: true }, a.token), expect: FORBIDDEN },
  { name: 'staff token on POST /v1/admin/shows', send: () => t.http.post('/v1/admin/shows', validShow(), staffToken), expect: FORBIDDEN },
  { name: 'user token on PATCH /v1/admin/shows/{id}', send: () => t.http.patch(`/v1/admin/shows/${open.showId}`, { per_user_limit: 100 }, a.token), expect: FORBIDDEN },
  { name: 'a user making itself admin', send: () => t.http.post(`/v1/admin/users/${a.userId}/role`, { role: 'admin' }, a.token), expect: FORBIDDEN },
  { name: 'a staff user making itself admin', send: () => t.http.post(`/v1/admin/users/${a.userId}/role`, { role: 'admin' }, staffToken), expect: FORBIDDEN },

  // --- hold body: types, missing fields, lists ----------------------------------
  { name: 'seats as a string', send: hold(() => open.showId, { seats: 'B1' }, asA), expect: VALIDATION },
  { name: 'seats of numbers', send: hold(() => open.showId, { seats: [1, 2] }, asA), expect: VALIDATION },
  { name: 'seats null', send: hold(() => open.showId, { seats: null }, asA), expect: VALIDATION },
  { name: 'seats missing', send: hold(() => open.showId, {}, asA), expect: VALIDATION },
  { name: 'seats of objects', send: hold(() => open.showId, { seats: [{ seat: 'B1' }] }, asA), expect: VALIDATION },
  { name: 'body is a JSON array', send: hold(() => open.showId, [['B1']], asA), expect: VALIDATION },
  { name: 'body is JSON null', send: holdRaw(() => open.showId, 'null', json, asA), expect: VALIDATION },
  { name: 'empty seat list', send: hold(() => open.showId, { seats: [] }, asA), expect: VALIDATION },
  { name: 'duplicated seats', send: hold(() => open.showId, { seats: ['B1', 'B2', 'B1'] }, asA), expect: VALIDATION },
  { name: 'unknown seat', send: hold(() => open.showId, { seats: ['B1', 'Z99'] }, asA), expect: VALIDATION },
  { name: 'seat id of another naming ("101-B1" in a hall without sections)', send: hold(() => open.showId, { seats: ['101-B1'] }, asA), expect: VALIDATION },
  { name: 'more seats than per_user_limit (5 > 4)', send: hold(() => open.showId, { seats: ['C1', 'C2', 'C3', 'C4', 'C5'] }, asA), expect: VALIDATION },
  { name: 'more than 1000 seats', send: hold(() => open.showId, { seats: Array.from({ length: 1001 }, (_, i) => `S${i}`) }, asA), expect: VALIDATION },
  { name: 'body over 64 KiB', send: hold(() => open.showId, { seats: ['B1'], pad: 'x'.repeat(70 * 1024) }, asA), expect: VALIDATION },
  { name: 'body over 64 KiB made of seats', send: hold(() => open.showId, { seats: Array.from({ length: 900 }, (_, i) => `${'Q'.repeat(30)}${i}`) }, asA), expect: VALIDATION },
  { name: 'malformed JSON', send: holdRaw(() => open.showId, '{"seats": ["B1",', json, asA), expect: VALIDATION },
  { name: 'JSON with a __proto__ key', send: holdRaw(() => open.showId, '{"seats":["B1"],"__proto__":{"admin":true}}', json, asA), expect: VALIDATION },
  { name: 'empty body with content-type JSON', send: holdRaw(() => open.showId, '', json, asA), expect: VALIDATION },
  { name: 'wrong content-type (form)', send: holdRaw(() => open.showId, 'seats=B1', { 'content-type': 'application/x-www-form-urlencoded' }, asA), expect: MEDIA_TYPE, match: namesJson },
  { name: 'wrong content-type (XML)', send: holdRaw(() => open.showId, '<seats><seat>B1</seat></seats>', { 'content-type': 'application/xml' }, asA), expect: MEDIA_TYPE, match: namesJson },
  { name: 'JSON sent as text/plain', send: holdRaw(() => open.showId, '{"seats":["B1"]}', { 'content-type': 'text/plain' }, asA), expect: MEDIA_TYPE, match: namesJson },
  { name: 'JSON sent without a content-type', send: holdRaw(() => open.showId, '{"seats":["B1"]}', {}, asA), expect: MEDIA_TYPE, match: namesJson },
  { name: 'wrong content-type on an admin route (text/plain)', send: () => t.http.send('POST', '/v1/admin/venues', { raw: '{"name":"V","city":"C"}', headers: { 'content-type': 'text/plain' }, token: t.adminToken }), expect: MEDIA_TYPE, match: namesJson },
  ...INJECTIONS.map((s): Row => ({ name: `seat id ${JSON.stringify(s.slice(0, 30))}`, send: hold(() => open.showId, { seats: [s] }, asA), expect: VALIDATION })),

  // --- ids: unknown, foreign, injected ------------------------------------------
  { name: 'unknown show: GET', send: () => t.http.get('/v1/shows/show_000000000000000000000000'), expect: NOT_FOUND },
  { name: 'unknown show: seat map', send: () => t.http.get('/v1/shows/show_000000000000000000000000/seats'), expect: NOT_FOUND },
  { name: 'unknown show: hold', send: hold(() => 'show_000000000000000000000000', { seats: ['A1'] }, asA), expect: NOT_FOUND },
  { name: 'unknown show: PATCH', send: () => t.http.patch('/v1/admin/shows/show_000000000000000000000000', { per_user_limit: 3 }, t.adminToken), expect: NOT_FOUND },
  { name: 'unknown hold: GET', send: () => t.http.get('/v1/holds/hold_000000000000000000000000', a.token), expect: NOT_FOUND },
  { name: 'unknown hold: DELETE', send: () => t.http.delete('/v1/holds/hold_000000000000000000000000', a.token), expect: NOT_FOUND },
  { name: "another user's hold: GET", send: () => t.http.get(`/v1/holds/${holdOfA}`, b.token), expect: NOT_FOUND },
  { name: "another user's hold: DELETE (and it stays held)", send: () => t.http.delete(`/v1/holds/${holdOfA}`, b.token), expect: NOT_FOUND },
  { name: "another user's hold: GET by the admin (owner-only route)", send: () => t.http.get(`/v1/holds/${holdOfA}`, t.adminToken), expect: NOT_FOUND },
  { name: 'unknown user: role change', send: () => t.http.post('/v1/admin/users/usr_000000000000000000000000/role', { role: 'staff' }, t.adminToken), expect: NOT_FOUND },
  { name: 'unknown route', send: () => t.http.get('/v1/no-such-thing'), expect: NOT_FOUND },
  { name: 'unknown route under /v1/admin', send: () => t.http.post('/v1/admin/nothing', {}, t.adminToken), expect: NOT_FOUND },
  { name: 'wrong method on a known path (PUT /v1/shows/{id})', send: () => t.http.send('PUT', `/v1/shows/${open.showId}`, { body: {} }), expect: NOT_FOUND },
  ...INJECTIONS.slice(0, 4).map((s): Row => ({ name: `show id ${JSON.stringify(s)}: GET`, send: () => t.http.get(`/v1/shows/${encodeURIComponent(s)}`), expect: NOT_FOUND })),
  ...INJECTIONS.slice(0, 4).map((s): Row => ({ name: `show id ${JSON.stringify(s)}: hold`, send: hold(() => s, { seats: ['A1'] }, asA), expect: NOT_FOUND })),
  ...INJECTIONS.slice(0, 4).map((s): Row => ({ name: `hold id ${JSON.stringify(s)}: DELETE`, send: () => t.http.delete(`/v1/holds/${encodeURIComponent(s)}`, a.token), expect: NOT_FOUND })),
  { name: 'show id with a NUL byte: GET', send: () => t.http.get('/v1/shows/show_1%00'), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show id with a NUL byte: seat map', send: () => t.http.get('/v1/shows/show_1%00/seats'), expect: [VALIDATION, NOT_FOUND] },
  { name: 'hold id with a NUL byte: GET', send: () => t.http.get('/v1/holds/hold_1%00', a.token), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show id of 65 characters', send: () => t.http.get(`/v1/shows/${'s'.repeat(65)}`), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show id of 300 characters', send: () => t.http.get(`/v1/shows/${'s'.repeat(300)}`), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show id of 300 characters: hold', send: hold(() => 's'.repeat(300), { seats: ['A1'] }, asA), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show id with broken percent-encoding', send: () => t.http.get('/v1/shows/%E0%A4%A'), expect: [VALIDATION, NOT_FOUND] },

  // --- search -------------------------------------------------------------------
  { name: 'date 2026-13-45', send: () => t.http.get('/v1/shows?date=2026-13-45'), expect: VALIDATION },
  { name: 'date 2026-02-30', send: () => t.http.get('/v1/shows?date=2026-02-30'), expect: VALIDATION },
  { name: 'date in another format (01/12/2026)', send: () => t.http.get('/v1/shows?date=01%2F12%2F2026'), expect: VALIDATION },
  { name: 'date injection', send: () => t.http.get(`/v1/shows?date=${encodeURIComponent("2026-12-01' OR 1=1 --")}`), expect: VALIDATION },
  { name: 'city of 201 characters', send: () => t.http.get(`/v1/shows?city=${'c'.repeat(201)}`), expect: VALIDATION },
  { name: 'city given twice', send: () => t.http.get('/v1/shows?city=a&city=b'), expect: VALIDATION },
  { name: 'event id of 65 characters', send: () => t.http.get(`/v1/shows?event=${'e'.repeat(65)}`), expect: VALIDATION },

  // --- accounts -----------------------------------------------------------------
  { name: 'register with a 7-character password', send: () => t.http.post('/v1/users', { email: 'short@example.test', password: '1234567' }), expect: VALIDATION },
  { name: 'register with a bad email', send: () => t.http.post('/v1/users', { email: 'not-an-email', password: 'password-123' }), expect: VALIDATION },
  { name: 'register with an injected email', send: () => t.http.post('/v1/users', { email: "x' OR 1=1 --@example.test", password: 'password-123' }), expect: VALIDATION },
  { name: 'register without a password', send: () => t.http.post('/v1/users', { email: 'nopass@example.test' }), expect: VALIDATION },
  { name: 'register with a numeric password', send: () => t.http.post('/v1/users', { email: 'numpass@example.test', password: 12345678 }), expect: VALIDATION },
  { name: 'register with a name of 201 characters', send: () => t.http.post('/v1/users', { email: 'longname@example.test', password: 'password-123', name: 'n'.repeat(201) }), expect: VALIDATION },
  { name: 'register with a NUL byte in the name', send: () => t.http.post('/v1/users', { email: 'nulname@example.test', password: 'password-123', name: 'Ann\u0000' }), expect: VALIDATION },
  { name: 'register a taken email', send: () => t.http.post('/v1/users', { email: DUP_EMAIL, password: 'password-456' }), expect: [409, 'EMAIL_TAKEN'] },
  { name: 'register a taken email in other case', send: () => t.http.post('/v1/users', { email: DUP_EMAIL.toUpperCase(), password: 'password-456' }), expect: [409, 'EMAIL_TAKEN'] },
  { name: 'sign in with a wrong password', send: () => t.http.post('/v1/sessions', { email: DUP_EMAIL, password: 'wrong-password' }), expect: [401, 'INVALID_CREDENTIALS'] },
  { name: 'sign in with an unknown email', send: () => t.http.post('/v1/sessions', { email: 'nobody@example.test', password: 'password-123' }), expect: [401, 'INVALID_CREDENTIALS'] },
  { name: 'sign in without a password', send: () => t.http.post('/v1/sessions', { email: DUP_EMAIL }), expect: VALIDATION },
  { name: 'role change to an unknown role', send: () => t.http.post(`/v1/admin/users/${b.userId}/role`, { role: 'root' }, t.adminToken), expect: VALIDATION },

  // --- catalog writes -----------------------------------------------------------
  { name: 'venue without a city', send: () => t.http.post('/v1/admin/venues', { name: 'V' }, t.adminToken), expect: VALIDATION },
  { name: 'venue with an unknown timezone', send: () => t.http.post('/v1/admin/venues', { name: 'V', city: 'C', timezone: 'Mars/Olympus_Mons' }, t.adminToken), expect: VALIDATION },
  { name: 'venue with an injected timezone', send: () => t.http.post('/v1/admin/venues', { name: 'V', city: 'C', timezone: "UTC' OR 1=1 --" }, t.adminToken), expect: VALIDATION },
  { name: 'venue with a NUL byte in the timezone', send: () => t.http.post('/v1/admin/venues', { name: 'V', city: 'C', timezone: 'UTC\u0000' }, t.adminToken), expect: VALIDATION },
  { name: 'venue with a NUL byte in the city', send: () => t.http.post('/v1/admin/venues', { name: 'V', city: 'Pune\u0000' }, t.adminToken), expect: VALIDATION },
  { name: 'hall with an unknown venue', send: () => t.http.post('/v1/admin/halls', { venue_id: 'ven_000000000000000000000000', name: 'H', layout: { rows: [{ row: 'A', seats: 5, tier: 'standard' }] } }, t.adminToken), expect: [VALIDATION, NOT_FOUND] },
  { name: 'hall with seats as a string', send: () => t.http.post('/v1/admin/halls', { venue_id: open.venueId, name: 'H', layout: { rows: [{ row: 'A', seats: '5', tier: 'standard' }] } }, t.adminToken), expect: VALIDATION },
  { name: 'hall with no rows', send: () => t.http.post('/v1/admin/halls', { venue_id: open.venueId, name: 'H', layout: { rows: [] } }, t.adminToken), expect: VALIDATION },
  { name: 'hall with an accessible seat not in its row', send: () => t.http.post('/v1/admin/halls', { venue_id: open.venueId, name: 'H', layout: { rows: [{ row: 'A', seats: 5, tier: 'standard', accessible: [6] }] } }, t.adminToken), expect: VALIDATION },
  { name: 'hall with a row given twice', send: () => t.http.post('/v1/admin/halls', { venue_id: open.venueId, name: 'H', layout: { rows: [{ row: 'A', seats: 5, tier: 'standard' }, { row: 'A', seats: [5, 6], tier: 'standard' }] } }, t.adminToken), expect: VALIDATION },
  { name: 'hall over 100,000 seats', send: () => t.http.post('/v1/admin/halls', { venue_id: open.venueId, name: 'H', layout: { rows: [{ row: 'A', seats: 60_000, tier: 'standard' }, { row: 'B', seats: 60_000, tier: 'standard' }] } }, t.adminToken), expect: VALIDATION },
  { name: 'hall with an injected row label', send: () => t.http.post('/v1/admin/halls', { venue_id: open.venueId, name: 'H', layout: { rows: [{ row: "F'; drop table show_seats; --", seats: 5, tier: 'standard' }] } }, t.adminToken), expect: VALIDATION },
  { name: 'event without a title', send: () => t.http.post('/v1/admin/events', { kind: 'film' }, t.adminToken), expect: VALIDATION },
  { name: 'event with duration as a string', send: () => t.http.post('/v1/admin/events', { title: 'T', duration_minutes: '90' }, t.adminToken), expect: VALIDATION },
  { name: 'show with a hall tier without a price', send: () => t.http.post('/v1/admin/shows', validShow({ price_tiers: { premium: 2000 } }), t.adminToken), expect: VALIDATION },
  { name: 'show with a price as a string', send: () => t.http.post('/v1/admin/shows', validShow({ price_tiers: { standard: '1000' } }), t.adminToken), expect: VALIDATION },
  { name: 'show with a negative price', send: () => t.http.post('/v1/admin/shows', validShow({ price_tiers: { standard: -1 } }), t.adminToken), expect: VALIDATION },
  { name: 'show with hold_ttl_seconds "5"', send: () => t.http.post('/v1/admin/shows', validShow({ hold_ttl_seconds: '5' }), t.adminToken), expect: VALIDATION },
  { name: 'show with hold_ttl_seconds 0', send: () => t.http.post('/v1/admin/shows', validShow({ hold_ttl_seconds: 0 }), t.adminToken), expect: VALIDATION },
  { name: 'show with per_user_limit 2.5', send: () => t.http.post('/v1/admin/shows', validShow({ per_user_limit: 2.5 }), t.adminToken), expect: VALIDATION },
  { name: 'show with waiting_room "true"', send: () => t.http.post('/v1/admin/shows', validShow({ waiting_room: 'true' }), t.adminToken), expect: VALIDATION },
  { name: 'show without event_id', send: () => t.http.post('/v1/admin/shows', { ...validShow(), event_id: undefined }, t.adminToken), expect: VALIDATION },
  { name: 'show with an unknown event_id', send: () => t.http.post('/v1/admin/shows', validShow({ event_id: 'evt_000000000000000000000000' }), t.adminToken), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show with an unknown hall_id', send: () => t.http.post('/v1/admin/shows', validShow({ hall_id: 'hall_000000000000000000000000' }), t.adminToken), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show with an injected hall_id', send: () => t.http.post('/v1/admin/shows', validShow({ hall_id: "x' OR 1=1 --" }), t.adminToken), expect: [VALIDATION, NOT_FOUND] },
  { name: 'show whose sale opens after it starts', send: () => t.http.post('/v1/admin/shows', validShow({ starts_at: fromNow(86_400_000), sale_opens_at: fromNow(2 * 86_400_000) }), t.adminToken), expect: VALIDATION },
  { name: 'show with starts_at "tomorrow"', send: () => t.http.post('/v1/admin/shows', validShow({ starts_at: 'tomorrow' }), t.adminToken), expect: VALIDATION },
  { name: 'show with starts_at 2026-13-45T10:00:00Z', send: () => t.http.post('/v1/admin/shows', validShow({ starts_at: '2026-13-45T10:00:00Z' }), t.adminToken), expect: VALIDATION },
  { name: 'show with starts_at in year 0000 (well-formed RFC 3339, not a PostgreSQL time)', send: () => t.http.post('/v1/admin/shows', validShow({ starts_at: '0000-01-01T00:00:00Z', sale_opens_at: '0000-01-01T00:00:00Z' }), t.adminToken), expect: VALIDATION },
  { name: 'show with currency "eur"', send: () => t.http.post('/v1/admin/shows', validShow({ currency: 'eur' }), t.adminToken), expect: VALIDATION },
  { name: 'show with empty price_tiers', send: () => t.http.post('/v1/admin/shows', validShow({ price_tiers: {} }), t.adminToken), expect: VALIDATION },
  { name: 'PATCH with an empty body', send: () => t.http.patch(`/v1/admin/shows/${open.showId}`, {}, t.adminToken), expect: VALIDATION },
  { name: 'PATCH moving the show to another hall', send: () => t.http.patch(`/v1/admin/shows/${open.showId}`, { hall_id: otherHall }, t.adminToken), expect: VALIDATION },
  { name: 'PATCH with the sale opening after the start', send: () => t.http.patch(`/v1/admin/shows/${open.showId}`, { sale_opens_at: fromNow(30 * 86_400_000) }, t.adminToken), expect: VALIDATION },
  { name: 'PATCH dropping a used price tier', send: () => t.http.patch(`/v1/admin/shows/${open.showId}`, { price_tiers: { vip: 1 } }, t.adminToken), expect: VALIDATION },
  { name: 'PATCH with an unknown event', send: () => t.http.patch(`/v1/admin/shows/${open.showId}`, { event_id: 'evt_000000000000000000000000' }, t.adminToken), expect: [VALIDATION, NOT_FOUND] },

  // --- the contract's order of checks on POST /v1/shows/{id}/holds ------------------
  { name: 'order: no token + bad body -> 401', send: hold(() => open.showId, { seats: 'B1' }), expect: UNAUTH },
  { name: 'order: no token + unknown show -> 401', send: hold(() => 'show_000000000000000000000000', { seats: ['A1'] }), expect: UNAUTH },
  { name: 'order: no token + malformed JSON -> 401', send: holdRaw(() => open.showId, '{"seats":', json), expect: UNAUTH },
  { name: 'order: unknown show + seats as a string -> 404', send: hold(() => 'show_000000000000000000000000', { seats: 'A1' }, asA), expect: NOT_FOUND },
  { name: 'order: unknown show + empty list -> 404', send: hold(() => 'show_000000000000000000000000', { seats: [] }, asA), expect: NOT_FOUND },
  { name: 'order: unknown show + malformed JSON -> 404', send: holdRaw(() => 'show_000000000000000000000000', '{"seats":', json, asA), expect: NOT_FOUND },
  { name: 'order: unknown show + wrong content-type -> 404', send: holdRaw(() => 'show_000000000000000000000000', 'seats=A1', { 'content-type': 'application/x-www-form-urlencoded' }, asA), expect: NOT_FOUND },
  { name: 'order: unknown show + body over 64 KiB -> 404', send: hold(() => 'show_000000000000000000000000', { seats: ['A1'], pad: 'x'.repeat(70 * 1024) }, asA), expect: NOT_FOUND },
  { name: 'order: sale not open + empty list -> 400', send: hold(() => notOpen.showId, { seats: [] }, asB), expect: VALIDATION },
  { name: 'order: sale not open + seats as a string -> 400', send: hold(() => notOpen.showId, { seats: 'A1' }, asB), expect: VALIDATION },
  { name: 'order: sale not open + duplicates -> 400', send: hold(() => notOpen.showId, { seats: ['A1', 'A1'] }, asB), expect: VALIDATION },
  { name: 'order: sale not open + unknown seat -> 400', send: hold(() => notOpen.showId, { seats: ['A1', 'Z99'] }, asB), expect: VALIDATION },
  { name: 'order: sale not open + more than per_user_limit -> 400', send: hold(() => notOpen.showId, { seats: ['B1', 'B2', 'B3', 'B4', 'B5'] }, asB), expect: VALIDATION },
  { name: 'order: sale not open + a taken seat -> 403 SALE_NOT_OPEN', send: hold(() => notOpen.showId, { seats: ['A1', 'A2'] }, asB), expect: [403, 'SALE_NOT_OPEN'] },
  { name: 'order: sale closed + unknown seat -> 400', send: hold(() => closed.showId, { seats: ['Z99'] }, asB), expect: VALIDATION },
  { name: 'order: sale closed + valid seats -> 403 SALE_CLOSED', send: hold(() => closed.showId, { seats: ['A1'] }, asB), expect: [403, 'SALE_CLOSED'] },
  { name: 'order: waiting room + bad body -> 400', send: hold(() => queued.showId, { seats: [] }, asB), expect: VALIDATION },
  { name: 'order: waiting room + unknown seat -> 400', send: hold(() => queued.showId, { seats: ['Z99'] }, asB), expect: VALIDATION },
  { name: 'order: waiting room without Admission-Token -> 403 QUEUE_REQUIRED', send: hold(() => queued.showId, { seats: ['A1'] }, asB), expect: [403, 'QUEUE_REQUIRED'] },
  { name: 'order: waiting room with a junk Admission-Token -> 403 QUEUE_REQUIRED', send: hold(() => queued.showId, { seats: ['A1'] }, asB, { 'admission-token': 'junk.token.value' }), expect: [403, 'QUEUE_REQUIRED'] },
  { name: 'order: waiting room, sale not open -> 403 SALE_NOT_OPEN', send: hold(() => queuedNotOpen.showId, { seats: ['A1'] }, asB), expect: [403, 'SALE_NOT_OPEN'] },
  { name: 'order: at the limit + a taken seat -> 409 SEAT_UNAVAILABLE', send: hold(() => limited.showId, { seats: ['B1'] }, asA), expect: [409, 'SEAT_UNAVAILABLE'], match: () => ({ taken: ['B1'] }) },
  { name: "order: the caller's own held seat -> 409 SEAT_UNAVAILABLE", send: hold(() => limited.showId, { seats: ['A1', 'C1'] }, asA), expect: [409, 'SEAT_UNAVAILABLE'], match: () => ({ taken: ['A1'] }) },
  { name: 'order: at the limit + free seats -> 409 LIMIT_EXCEEDED', send: hold(() => limited.showId, { seats: ['C1'] }, asA), expect: [409, 'LIMIT_EXCEEDED'] },

  // --- the waiting room's routes ------------------------------------------------------
  { name: 'queue join without a token', send: () => t.http.post(`/v1/shows/${queued.showId}/queue`, {}), expect: UNAUTH },
  { name: 'queue join of an unknown show', send: () => t.http.post('/v1/shows/show_000000000000000000000000/queue', {}, a.token), expect: NOT_FOUND },
  { name: 'queue join of a show without a waiting room', send: () => t.http.post(`/v1/shows/${open.showId}/queue`, {}, a.token), expect: [409, 'NO_WAITING_ROOM'] },
  { name: 'queue status of an unknown show', send: () => t.http.get('/v1/shows/show_000000000000000000000000/queue'), expect: NOT_FOUND },
  { name: 'queue status with an unknown query parameter', send: () => t.http.get(`/v1/shows/${queued.showId}/queue?position=1`), expect: VALIDATION },
  { name: 'queue status of a show without a waiting room', send: () => t.http.get(`/v1/shows/${open.showId}/queue`), expect: [409, 'NO_WAITING_ROOM'] },
  { name: 'admit without a token', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, { queue_token: 'x' }), expect: UNAUTH },
  { name: 'admit without queue_token', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, {}, a.token), expect: VALIDATION },
  { name: 'admit with queue_token a number', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, { queue_token: 7 }, a.token), expect: VALIDATION },
  { name: 'admit with an empty queue_token', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, { queue_token: '' }, a.token), expect: VALIDATION },
  { name: 'admit with an unknown property', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, { queue_token: 'x', position: 1 }, a.token), expect: VALIDATION },
  { name: 'admit with malformed JSON', send: () => t.http.send('POST', `/v1/shows/${queued.showId}/queue/admit`, { raw: '{"queue_token":', headers: json, token: a.token }), expect: VALIDATION },
  { name: 'admit with a junk queue token', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, { queue_token: 'junk.token.value' }, a.token), expect: [400, 'TOKEN_INVALID'] },
  { name: 'admit with a user bearer token as queue token', send: () => t.http.post(`/v1/shows/${queued.showId}/queue/admit`, { queue_token: a.token }, a.token), expect: [400, 'TOKEN_INVALID'] },
  { name: 'admit on a show without a waiting room', send: () => t.http.post(`/v1/shows/${open.showId}/queue/admit`, { queue_token: 'junk.token.value' }, a.token), expect: [409, 'NO_WAITING_ROOM'] },
  { name: 'admin queue view without a token', send: () => t.http.get(`/v1/admin/shows/${queued.showId}/queue`), expect: UNAUTH },
  { name: 'admin queue view with a user token', send: () => t.http.get(`/v1/admin/shows/${queued.showId}/queue`, a.token), expect: FORBIDDEN },
  { name: 'admin queue change with a staff token', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, { action: 'pause' }, staffToken), expect: FORBIDDEN },
  { name: 'admin queue change with an empty body', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, {}, t.adminToken), expect: VALIDATION },
  { name: 'admin queue change with action "stop"', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, { action: 'stop' }, t.adminToken), expect: VALIDATION },
  { name: 'admin queue change with a negative cap', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, { max_admit_per_minute: -1 }, t.adminToken), expect: VALIDATION },
  { name: 'admin queue change with the cap as a string', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, { max_admit_per_minute: '10' }, t.adminToken), expect: VALIDATION },
  { name: 'admin queue change with a fractional cap', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, { max_admit_per_minute: 1.5 }, t.adminToken), expect: VALIDATION },
  { name: 'admin queue change with an unknown property', send: () => t.http.post(`/v1/admin/shows/${queued.showId}/queue`, { action: 'pause', rate: 5 }, t.adminToken), expect: VALIDATION },
  { name: 'admin queue change of an unknown show', send: () => t.http.post('/v1/admin/shows/show_000000000000000000000000/queue', { action: 'pause' }, t.adminToken), expect: NOT_FOUND },
  { name: 'admin queue change of a show without a waiting room', send: () => t.http.post(`/v1/admin/shows/${open.showId}/queue`, { action: 'pause' }, t.adminToken), expect: [409, 'NO_WAITING_ROOM'] },
];

// Answers that may be 200 (an empty result) or a 4xx problem, but never 5xx, and change nothing.
const harmless: { name: string; path: string }[] = [
  { name: 'city injection', path: `/v1/shows?city=${encodeURIComponent("' OR 1=1 --")}` },
  { name: 'city drop table', path: `/v1/shows?city=${encodeURIComponent("Pune'; drop table show_seats; --")}` },
  { name: 'city in Devanagari and emoji', path: `/v1/shows?city=${encodeURIComponent('पुणे 🎬')}` },
  { name: 'city with a NUL byte', path: '/v1/shows?city=Pune%00' },
  { name: 'city with broken percent-encoding', path: '/v1/shows?city=%E0%A4%A' },
  { name: 'event injection', path: `/v1/shows?event=${encodeURIComponent("' OR 1=1 --")}` },
  { name: 'movie alias injection', path: `/v1/shows?movie=${encodeURIComponent("x'; drop table shows; --")}` },
  { name: 'date 0000-01-01 (well-formed, not a PostgreSQL date)', path: '/v1/shows?date=0000-01-01' },
  { name: 'date 9999-12-31', path: '/v1/shows?date=9999-12-31' },
];

describe('bad input: every malformed request is a 4xx problem and changes nothing', () => {
  beforeAll(async () => {
    t = await startTestService({ sweeper: false });
    [a, b] = (await registerBuyers(t, 2)) as [Buyer, Buyer];
    const [s] = await registerBuyers(t, 1);
    const promote = await t.http.post(`/v1/admin/users/${s!.userId}/role`, { role: 'staff' }, t.adminToken);
    expect(promote.status).toBe(200);
    staffToken = (await t.http.post('/v1/sessions', { email: s!.email, password: 'password-123' })).body.token;
    expect((await t.http.post('/v1/users', { email: DUP_EMAIL, password: 'password-123' })).status).toBe(201);

    open = await createShow(t, { per_user_limit: 4 });
    const h = await t.http.post(`/v1/shows/${open.showId}/holds`, { seats: ['A1'] }, a.token);
    expect(h.status).toBe(201);
    holdOfA = h.body.hold_id;
    otherHall = (await createShow(t)).hallId;

    notOpen = await createShow(t, { per_user_limit: 4 });
    expect((await t.http.post(`/v1/shows/${notOpen.showId}/holds`, { seats: ['A1'] }, a.token)).status).toBe(201);
    const moved = await t.http.patch(`/v1/admin/shows/${notOpen.showId}`, { sale_opens_at: fromNow(3 * 86_400_000) }, t.adminToken);
    expect(moved.status).toBe(200);

    closed = await createShow(t, { starts_at: fromNow(-3_600_000) });
    queued = await createShow(t, { waiting_room: true });
    queuedNotOpen = await createShow(t, { waiting_room: true, sale_opens_at: fromNow(86_400_000) });
    limited = await createShow(t, { per_user_limit: 2 });
    expect((await t.http.post(`/v1/shows/${limited.showId}/holds`, { seats: ['A1', 'A2'] }, a.token)).status).toBe(201);
    expect((await t.http.post(`/v1/shows/${limited.showId}/holds`, { seats: ['B1'] }, b.token)).status).toBe(201);

    key = await tokenSecret(t.service.ctx.db);
    const now = Math.floor(Date.now() / 1000);
    const [head, payload, sig] = a.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    tokens = {
      expired: await signUserToken(key, { sub: a.userId, iat: now - 7200, exp: now - 3600 }),
      otherSecret: await signUserToken(new TextEncoder().encode('another-secret-of-at-least-32-characters!'), { sub: a.userId }),
      forged: `${head}.${payload}.${flip(sig[0]!)}${sig.slice(1)}`,
      tampered: `${head}.${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.${sig}`,
      algNone: `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.`,
      ghost: await signUserToken(key, { sub: 'usr_000000000000000000000000' }),
      wrongAudience: await signUserToken(key, { sub: a.userId, audience: 'someone-else' }),
      noAudience: await signUserToken(key, { sub: a.userId, audience: null }),
      noIssuer: await signUserToken(key, { sub: a.userId, issuer: null }),
    };
    // Whatever the set-up wrote is published first (the feed would publish it meanwhile).
    await t.service.ctx.seatFeed.catchUp();
    before = await fingerprint();
  });
  afterAll(async () => { await t?.close(); });

  it('has a table of at least 30 malformed requests', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const r = await row.send();
    const pairs = (Array.isArray(row.expect[0]) ? row.expect : [row.expect]) as readonly (readonly [number, string])[];
    expect(r.status, `a client error is never 5xx: ${r.text.slice(0, 200)}`).toBeLessThan(500);
    if (pairs.length === 1) expectProblem(r, pairs[0]![0], pairs[0]![1]);
    else expectOneOfProblems(r, pairs);
    if (row.match) expect(r.body).toMatchObject(row.match());
  });

  it.each(harmless.map((h) => [h.name, h] as const))('search with %s: 200 empty or 4xx problem, never 5xx', async (_name, h) => {
    const r = await t.http.get(h.path);
    expect(r.status, r.text.slice(0, 300)).toBeLessThan(500);
    if (r.status === 200) expect(r.body).toEqual({ shows: [] });
    else expectProblem(r, 400, 'VALIDATION_FAILED');
  });

  it('changed no data at all (fingerprint of every table)', async () => {
    expect(await fingerprint()).toEqual(before);
    // and the hold another user tried to release is still held
    const mine = await t.http.get(`/v1/holds/${holdOfA}`, a.token);
    expect(mine.body.status).toBe('active');
  });
});
