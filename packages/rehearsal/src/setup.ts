// The rehearsal's fixtures through the public API, as an operator would make them:
// a venue, a hall (rows of 20 seats; a stadium: sections of 20 rows × 50), an event,
// the show(s) on sale now (taken off sale at the end), and synthetic buyer accounts.
import { request } from 'undici';
import type { Options } from './options.js';
import type { BuyerAccount } from './buyer.js';
import { onCleanup } from './cleanup.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function api(baseUrl: string, method: 'GET' | 'POST' | 'PATCH', path: string, o: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${baseUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), headersTimeout: 120_000, bodyTimeout: 120_000 });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

async function must(baseUrl: string, method: 'GET' | 'POST', path: string, status: number, o: { token?: string; body?: unknown }) {
  const r = await api(baseUrl, method, path, o);
  if (r.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

export async function signIn(baseUrl: string, admin: { email: string; password: string }): Promise<string> {
  return (await must(baseUrl, 'POST', '/v1/sessions', 200, { body: admin })).token as string;
}

/** Row names A, B, …, Z, AA, AB, … */
export function rowName(i: number): string {
  return i < 26 ? String.fromCharCode(65 + i) : rowName(Math.floor(i / 26) - 1) + String.fromCharCode(65 + (i % 26));
}

type LayoutRow = { row: string; seats: number; tier: string; section?: string };

/** A hall of `seats` seats: rows of 20 (front rows premium), or for a stadium sections of 1,000 (20 rows × 50). */
export function hallLayout(seats: number, sections: boolean): LayoutRow[] {
  const rows: LayoutRow[] = [];
  if (sections && seats >= 1000) {
    const count = seats / 1000;
    for (let s = 0; s < count; s++) {
      const tier = s < count / 4 ? 'premium' : 'standard';
      for (let r = 0; r < 20; r++) rows.push({ section: String(101 + s), row: rowName(r), seats: 50, tier });
    }
    return rows;
  }
  for (let r = 0, left = seats; left > 0; r++, left -= 20) rows.push({ row: rowName(r), seats: Math.min(20, left), tier: r < 3 ? 'premium' : 'standard' });
  return rows;
}

/**
 * The venue, hall, event and show(s): their ids, and the step that takes the shows
 * off sale (registered for every way out; run it at the end).
 */
export async function createShows(baseUrl: string, token: string, o: Readonly<Options>): Promise<{ ids: string[]; close: () => Promise<void> }> {
  const post = (path: string, body: unknown) => must(baseUrl, 'POST', path, 201, { token, body });
  const venue = await post('/v1/admin/venues', { name: `Rehearsal ${o.preset}`, city: 'Rehearsalton' });
  const hall = await post('/v1/admin/halls', { venue_id: venue.id, name: 'Main', layout: { rows: hallLayout(o.seats, o.sections) } });
  const event = await post('/v1/admin/events', { title: `On-sale rehearsal ${o.preset}`, kind: o.sections ? 'concert' : 'film', duration_minutes: 120 });
  const ids: string[] = [];
  const close = onCleanup('take the rehearsal\'s shows off sale', () => closeShows(baseUrl, token, ids));
  try {
    for (let i = 0; i < o.shows; i++) {
      const show = await post('/v1/admin/shows', {
        event_id: event.id, hall_id: hall.id, starts_at: new Date(Date.now() + (7 + i) * 86_400_000).toISOString(),
        // A minute back, so a database clock slightly behind ours finds the sale open.
        sale_opens_at: new Date(Date.now() - 60_000).toISOString(), currency: 'EUR', price_tiers: { premium: 9500, standard: 6500 },
        hold_ttl_seconds: o.holdTtlSeconds, per_user_limit: 10, waiting_room: o.waitingRoom,
        // Its share of the buyers: a sharded service places each show on the shard
        // expecting the least demand, so the rehearsal's shows spread over the shards
        // (with none given, every show weighs 0 and all go to the first shard).
        expected_demand: Math.ceil(o.buyers / o.shows),
      });
      ids.push(show.id as string);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { ids, close };
}

/**
 * No route cancels or removes a show with bookings yet: a show that has started is
 * what the API takes off sale and out of the public listings (GET /v1/events and
 * GET /v1/shows list shows still to come), so the shows move to a day ago.
 */
async function closeShows(baseUrl: string, token: string, ids: readonly string[]): Promise<void> {
  const past = new Date(Date.now() - 86_400_000).toISOString();
  for (const id of ids) {
    const r = await api(baseUrl, 'PATCH', `/v1/admin/shows/${id}`, { token, body: { starts_at: past, sale_opens_at: past } });
    if (r.status !== 200) throw new Error(`PATCH /v1/admin/shows/${id}: expected 200, got ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
  }
}

/**
 * Buyer accounts from the synthetic-buyers route, 10,000 a request. The first request
 * is the probe: a service without the route (404) stops the rehearsal before it has
 * made anything, with what to set.
 */
export async function syntheticBuyers(baseUrl: string, token: string, n: number, progress: (made: number) => void): Promise<BuyerAccount[]> {
  const out: BuyerAccount[] = [];
  for (let start = 0; start < n; start += 10_000) {
    const body = { count: Math.min(10_000, n - start), label: 'onsale rehearsal' };
    const r = await api(baseUrl, 'POST', '/v1/admin/synthetic-buyers', { token, body });
    if (r.status === 404 && start === 0) {
      throw new Error(`the service at ${baseUrl} makes no synthetic buyers (POST /v1/admin/synthetic-buyers answered 404); nothing was created. `
        + 'Start it with BOXOFFICE_SYNTHETIC_BUYERS=1, and with RATE_LIMIT_EXEMPT naming the address the rehearsal connects from '
        + '(e.g. RATE_LIMIT_EXEMPT=127.0.0.0/8,::1 on one machine), so that its buyers are not answered 429.');
    }
    if (r.status !== 201) throw new Error(`POST /v1/admin/synthetic-buyers: expected 201, got ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
    for (const b of r.body.buyers as { user_id: string; token: string }[]) out.push({ userId: b.user_id, token: b.token });
    progress(out.length);
  }
  return out;
}
