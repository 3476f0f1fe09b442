// Fixtures through the public API, as a client would make them: admin session,
// a show of rows × seats, buyers. Only for setup, so plain and unhurried.
import { Agent, request } from 'undici';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ADMIN } from './child.js';
import { rowName } from '@boxoffice/rehearsal';

const agent = new Agent({ connections: 32, pipelining: 1 });

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The body decoded (gzip or br undone). */
  text: string;
  /** The body's bytes as they came over the wire. */
  raw: Buffer;
}

/** Headers Node's HTTP server writes itself on every answer (or per connection): a replay does not copy them. */
const WRITTEN_PER_ANSWER = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * The headers of a recorded answer for a bare server to replay: every one the service
 * sent (security headers included) but those Node writes itself, so that both send the
 * same bytes.
 */
export function replayedHeaders(a: Answer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(a.headers)) if (value !== undefined && !WRITTEN_PER_ANSWER.has(name)) out[name] = String(value);
  return out;
}

/** `raw` sends those exact bytes as JSON (a signed webhook); `body` is serialised. */
export async function call(baseUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, o: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined || o.raw !== undefined) headers['content-type'] = 'application/json';
  const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  const res = await request(`${baseUrl}${path}`, { method, headers, body, dispatcher: agent });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const encoding = res.headers['content-encoding'];
  const text = (encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : raw).toString('utf8');
  const json = String(res.headers['content-type'] ?? '').includes('json') && text ? JSON.parse(text) : undefined;
  return { status: res.statusCode, headers: res.headers, body: json, text, raw };
}

function must(a: Answer, status: number, what: string): Answer {
  if (a.status !== status) throw new Error(`${what}: expected ${status}, got ${a.status}: ${a.text.slice(0, 500)}`);
  return a;
}

export async function adminToken(baseUrl: string): Promise<string> {
  return must(await call(baseUrl, 'POST', '/v1/sessions', { body: ADMIN }), 200, 'admin sign-in').body.token;
}

export interface ShowFixture {
  showId: string;
  rows: string[];
  seatsPerRow: number;
}

export interface HallLayoutRow {
  row: string;
  seats: number;
  tier: string;
  section?: string;
}

/**
 * A show in a hall of `rows` rows A, B, … of `seatsPerRow` seats, one tier, sale open now;
 * or, given `layout` and `price_tiers`, in a hall of that layout (a stadium with sections).
 */
export async function createShow(baseUrl: string, token: string, o: {
  rows: number; seatsPerRow: number; hold_ttl_seconds?: number; per_user_limit?: number; waiting_room?: boolean;
  layout?: HallLayoutRow[]; price_tiers?: Record<string, number>;
  /** Pins the show to this shard (SHARD_URLS name). */
  shard?: string;
}): Promise<ShowFixture> {
  const post = async (path: string, body: unknown) => must(await call(baseUrl, 'POST', path, { body, token }), 201, `POST ${path}`).body;
  const venue = await post('/v1/admin/venues', { name: 'Bench Cinema', city: 'Benchville' });
  const rows = Array.from({ length: o.rows }, (_, i) => rowName(i));
  const hall = await post('/v1/admin/halls', {
    venue_id: venue.id, name: 'Screen 1', layout: { rows: o.layout ?? rows.map((row) => ({ row, seats: o.seatsPerRow, tier: 'standard' })) },
  });
  const event = await post('/v1/admin/events', { title: 'Bench Film', kind: 'film', duration_minutes: 100 });
  const show = await post('/v1/admin/shows', {
    event_id: event.id,
    hall_id: hall.id,
    starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    // A minute back, so a database clock slightly behind ours still finds the sale open.
    sale_opens_at: new Date(Date.now() - 60_000).toISOString(),
    currency: 'EUR',
    price_tiers: o.price_tiers ?? { standard: 1000 },
    ...(o.hold_ttl_seconds !== undefined ? { hold_ttl_seconds: o.hold_ttl_seconds } : {}),
    ...(o.per_user_limit !== undefined ? { per_user_limit: o.per_user_limit } : {}),
    ...(o.waiting_room !== undefined ? { waiting_room: o.waiting_room } : {}),
    ...(o.shard !== undefined ? { shard: o.shard } : {}),
  });
  return { showId: show.id, rows, seatsPerRow: o.seatsPerRow };
}

export interface Buyer {
  index: number;
  userId: string;
  token: string;
  email: string;
}

export function buyerEmail(i: number): string {
  return `buyer-${i}@bench.example`;
}

/** Registers buyers 1..n (scrypt makes each slow on purpose: 16 at a time). */
export async function registerBuyers(baseUrl: string, n: number, progress?: (done: number) => void): Promise<Buyer[]> {
  const buyers: Buyer[] = [];
  for (let start = 1; start <= n; start += 16) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, n - start + 1) }, async (_, k) => {
        const index = start + k;
        const email = buyerEmail(index);
        const r = must(await call(baseUrl, 'POST', '/v1/users', { body: { email, password: 'bench-password-1' } }), 201, `register ${email}`);
        return { index, userId: r.body.user_id as string, token: r.body.token as string, email };
      }),
    );
    buyers.push(...batch);
    progress?.(buyers.length);
  }
  return buyers;
}

export async function closeApiClient(): Promise<void> {
  await agent.close();
}
