// Builds venues, halls, events and shows through the admin API, and buyers.
import { randomBytes } from 'node:crypto';
import type { TestService } from './service.js';

export interface ShowOptions {
  rows?: number;
  seatsPerRow?: number;
  hold_ttl_seconds?: number;
  per_user_limit?: number;
  sale_opens_at?: string;
  starts_at?: string;
  waiting_room?: boolean;
  city?: string;
  timezone?: string;
}

/** Rows A, B, C… of seatsPerRow seats, all tier "standard" priced 1000 EUR cents. */
export async function createShow(t: TestService, o: ShowOptions = {}): Promise<{ showId: string; seats: string[]; hallId: string; venueId: string; eventId: string }> {
  const token = t.adminToken;
  const must = (r: { status: number; text: string }, want: number) => {
    if (r.status !== want) throw new Error(`expected ${want}, got ${r.status}: ${r.text}`);
  };
  const venue = await t.http.post('/v1/admin/venues', { name: 'Test Cinema', city: o.city ?? 'Testville', timezone: o.timezone ?? 'UTC' }, token);
  must(venue, 201);
  const rows = Array.from({ length: o.rows ?? 10 }, (_, i) => ({ row: String.fromCharCode(65 + i), seats: o.seatsPerRow ?? 20, tier: 'standard' }));
  const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'Screen 1', layout: { rows } }, token);
  must(hall, 201);
  const event = await t.http.post('/v1/admin/events', { title: 'Test Film', kind: 'film', duration_minutes: 100 }, token);
  must(event, 201);
  const show = await t.http.post('/v1/admin/shows', {
    event_id: event.body.id,
    hall_id: hall.body.id,
    starts_at: o.starts_at ?? new Date(Date.now() + 7 * 86_400_000).toISOString(),
    ...(o.sale_opens_at ? { sale_opens_at: o.sale_opens_at } : {}),
    currency: 'EUR',
    price_tiers: { standard: 1000 },
    hold_ttl_seconds: o.hold_ttl_seconds ?? 600,
    per_user_limit: o.per_user_limit ?? 10,
    waiting_room: o.waiting_room ?? false,
  }, token);
  must(show, 201);
  const seats = rows.flatMap((r) => Array.from({ length: r.seats }, (_, k) => `${r.row}${k + 1}`));
  return { showId: show.body.id, seats, hallId: hall.body.id, venueId: venue.body.id, eventId: event.body.id };
}

export interface Buyer {
  userId: string;
  token: string;
  email: string;
}

/** Registers n buyers (scrypt is slow on purpose: a few at a time). */
export async function registerBuyers(t: TestService, n: number): Promise<Buyer[]> {
  const buyers: Buyer[] = [];
  const tag = randomBytes(4).toString('hex');
  for (let start = 0; start < n; start += 16) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, n - start) }, async (_, k) => {
        const email = `buyer-${tag}-${start + k}@example.test`;
        const r = await t.http.post('/v1/users', { email, password: 'password-123' });
        if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text}`);
        return { userId: r.body.user_id as string, token: r.body.token as string, email };
      }),
    );
    buyers.push(...batch);
  }
  return buyers;
}
