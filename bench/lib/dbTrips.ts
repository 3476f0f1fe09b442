// What the service says it sent to PostgreSQL, read from its /metrics
// (boxoffice_db_round_trips_total, _commits_total, _seconds_total by origin; src/db/trips.ts),
// and what PostgreSQL itself counted for the database (pg_stat_database), to check one by the other.
import { adminQuery } from './db.js';

export interface OriginTrips {
  roundTrips: number;
  commits: number;
  seconds: number;
}

export type TripSnapshot = Map<string, OriginTrips>;

const LINE = /^boxoffice_db_(round_trips|commits|seconds)_total\{origin="([^"]+)"\} (\S+)$/;

/** The lines of the service's GET /metrics; throws when it does not answer 200. */
export async function metricLines(baseUrl: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics: ${res.status}`);
  return (await res.text()).split('\n');
}

/** The service's counts by origin, scraped from GET /metrics. */
export async function scrapeTrips(baseUrl: string): Promise<TripSnapshot> {
  return tripsFrom(await metricLines(baseUrl));
}

/** The counts by origin in lines of /metrics already read. */
export function tripsFrom(lines: readonly string[]): TripSnapshot {
  const snap: TripSnapshot = new Map();
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) continue;
    const o = snap.get(m[2]!) ?? { roundTrips: 0, commits: 0, seconds: 0 };
    const v = Number(m[3]);
    if (m[1] === 'round_trips') o.roundTrips = v;
    else if (m[1] === 'commits') o.commits = v;
    else o.seconds = v;
    snap.set(m[2]!, o);
  }
  if (!snap.has('request')) throw new Error('GET /metrics has no boxoffice_db_round_trips_total{origin="request"}');
  return snap;
}

/** later − earlier, origin by origin (origins that did nothing are left out). */
export function tripsBetween(earlier: TripSnapshot, later: TripSnapshot): TripSnapshot {
  const out: TripSnapshot = new Map();
  for (const [origin, b] of later) {
    const a = earlier.get(origin) ?? { roundTrips: 0, commits: 0, seconds: 0 };
    const d = { roundTrips: b.roundTrips - a.roundTrips, commits: b.commits - a.commits, seconds: b.seconds - a.seconds };
    if (d.roundTrips > 0) out.set(origin, d);
  }
  return out;
}

export function totalTrips(s: TripSnapshot): OriginTrips {
  let roundTrips = 0, commits = 0, seconds = 0;
  for (const o of s.values()) {
    roundTrips += o.roundTrips;
    commits += o.commits;
    seconds += o.seconds;
  }
  return { roundTrips, commits, seconds };
}

/**
 * Commits and rollbacks PostgreSQL counted for the database. A backend reports its
 * counts when it goes idle, at most once a second: wait ~1.5 s after the work before reading.
 */
export async function pgTransactions(database: string): Promise<{ commits: number; rollbacks: number }> {
  const rows = await adminQuery<{ commits: string; rollbacks: string }>(
    'select xact_commit as commits, xact_rollback as rollbacks from pg_stat_database where datname = $1', [database]);
  return { commits: Number(rows[0]?.commits ?? NaN), rollbacks: Number(rows[0]?.rollbacks ?? NaN) };
}
