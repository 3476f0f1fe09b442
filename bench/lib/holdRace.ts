// The hold race of bench:holds and bench:hotpath: every connection keeps asking for
// 2 random adjacent seats of one show (its own buyer, the same bodies for every
// target), and the database is put back in the same state before every slice.
import type { Child } from './child.js';
import { machineBusySeconds } from './child.js';
import { adminQuery } from './db.js';
import type { Buyer } from './api.js';
import { runLoad, type CpuMeter, type LoadResult, type RequestSpec } from './load.js';

/** Every pair of adjacent seats of the show's rows, as request bodies. */
export function adjacentPairs(rows: readonly string[], seatsPerRow: number): Buffer[] {
  const bodies: Buffer[] = [];
  for (const row of rows) {
    for (let n = 1; n < seatsPerRow; n++) bodies.push(Buffer.from(JSON.stringify({ seats: [`${row}${n}`, `${row}${n + 1}`] })));
  }
  return bodies;
}

/** One request per buyer: the service reads the token, a bare route x-bench-user; `extra` adds headers. */
export function holdSpecs(showId: string, buyers: readonly Buyer[], extra: (b: Buyer, i: number) => string[] = () => []): RequestSpec[] {
  return buyers.map((b, i) => ({
    method: 'POST',
    path: `/v1/shows/${showId}/holds`,
    headers: ['content-type', 'application/json', 'authorization', `Bearer ${b.token}`, 'x-bench-user', b.userId, ...extra(b, i)],
    body: null,
  }));
}

const SEAT_UNAVAILABLE = Buffer.from('"SEAT_UNAVAILABLE"');

/** The closed loop of holds against `server`: decided = 201 held or 409 SEAT_UNAVAILABLE, anything else an error by code. */
export function holdLoad(o: {
  label: string; server: Child; connections: number; seconds: number; warmupSeconds: number;
  specs: RequestSpec[]; bodies: Buffer[]; dbCpu: CpuMeter;
}): Promise<LoadResult> {
  return runLoad({
    label: o.label, origin: o.server.baseUrl, connections: o.connections, seconds: o.seconds, warmupSeconds: o.warmupSeconds,
    cpuMeters: [
      { name: 'server', read: () => o.server.cpuSeconds() },
      o.dbCpu,
      { name: 'machine', read: machineBusySeconds },
    ],
    outcomes: ['held', 'seat_unavailable'],
    next(conn) {
      const spec = o.specs[conn]!;
      spec.body = o.bodies[(Math.random() * o.bodies.length) | 0]!;
      return spec;
    },
    wantBody: (status) => status !== 201,
    classify: (status, body) => (status === 201 ? 0 : status === 409 && body && body.includes(SEAT_UNAVAILABLE) ? 1 : -1),
    errorKey: (status, body) => `HTTP ${status} ${/"code":"([A-Z_]+)"/.exec(body?.toString() ?? '')?.[1] ?? ''}`.trim(),
  });
}

/**
 * The bench server runs with autovacuum off, and every hold rewrites seat rows: dead
 * rows pile up and each claim reads more pages as a run goes on. Every slice starts
 * from the same compacted tables, so order is no factor.
 */
export async function compactSeats(url: string): Promise<void> {
  await adminQuery('vacuum full show_seats', [], url);
  await adminQuery('vacuum holds', [], url);
}

/** Answers with HTTP status 503 in a run (any code). */
export function shed(r: LoadResult): number {
  let n = 0;
  for (const [k, v] of r.errors) if (k.startsWith('HTTP 503')) n += v;
  return n;
}
