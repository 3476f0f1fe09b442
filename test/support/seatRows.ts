// Reads the seat rows and holds of a show straight from PostgreSQL, so concurrency
// tests judge the outcome by what the database holds, not by what the service said.
import type { Queryable } from '../../src/db/client.js';
import type { HttpAnswer } from './http.js';
import type { TestService } from './service.js';

export interface SeatRow {
  seat_id: string;
  status: string;
  hold_id: string | null;
  holder_id: string | null;
  hold_expires_at: Date | null;
  version: number;
}

/** The rows of the given seats of a show (all seats when none are named), by seat id. */
export async function seatRows(db: Queryable, showId: string, seats?: readonly string[]): Promise<SeatRow[]> {
  const r = await db.query<SeatRow>(
    `select seat_id, status, hold_id, holder_id, hold_expires_at, version
       from show_seats
      where show_id = $1 and ($2::text[] is null or seat_id = any ($2::text[]))
      order by seat_id`,
    [showId, seats ?? null],
  );
  return r.rows;
}

/** The show's totals: hold rows ever written and seat rows that carry a hold id. */
export async function showTotals(db: Queryable, showId: string): Promise<{ holds: number; seatsWithHold: number }> {
  const r = await db.query<{ holds: number; seats_with_hold: number }>(
    `select (select count(*) from holds where show_id = $1) as holds,
            (select count(*) from show_seats where show_id = $1 and hold_id is not null) as seats_with_hold`,
    [showId],
  );
  return { holds: r.rows[0]!.holds, seatsWithHold: r.rows[0]!.seats_with_hold };
}

/** POST /v1/shows/{id}/holds as the given buyer. */
export function postHold(t: TestService, showId: string, seats: readonly string[], token: string): Promise<HttpAnswer> {
  return t.http.post(`/v1/shows/${showId}/holds`, { seats }, token);
}

/** Fisher–Yates on a copy; `random` defaults to Math.random. */
export function shuffled<T>(items: readonly T[], random: () => number = Math.random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A small seeded PRNG (mulberry32), so a failing trial can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A one-line summary of answers by status and code, e.g. "201×1 409:SEAT_UNAVAILABLE×199". */
export function tally(answers: readonly { status: number; body?: { code?: string } }[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = a.status >= 400 && a.body?.code ? `${a.status}:${a.body.code}` : String(a.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort().map(([k, n]) => `${k}×${n}`).join(' ');
}
