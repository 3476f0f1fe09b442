// A throwaway PostgreSQL database per benchmark run, dropped on every way out.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { onCleanup } from './cleanup.js';
import { processCpuSeconds } from './child.js';

/** The server's maintenance database; the bench makes its own database next to it. */
export const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function adminQuery<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = [], url = ADMIN_URL): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Creates bo_bench_<random>; it is dropped (connections forced off) at cleanup. */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `bo_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const drop = onCleanup(`drop database ${name}`, async () => {
    await adminQuery(`drop database if exists ${name} with (force)`);
    process.stderr.write(`dropped database ${name}\n`);
  });
  return { name, url: withDatabase(ADMIN_URL, name), drop };
}

export interface ConnectionBudget {
  max: number;
  reserved: number;
  inUse: number;
  /** Connections anyone may still open without touching the superuser reserve. */
  free: number;
}

/** How many connections the shared server can still take (other people run tests on it). */
export async function connectionBudget(): Promise<ConnectionBudget> {
  const [row] = await adminQuery<{ max: number; reserved: number; in_use: number }>(
    `select current_setting('max_connections')::int as max,
            current_setting('superuser_reserved_connections')::int as reserved,
            (select count(*)::int from pg_stat_activity where backend_type = 'client backend') as in_use`,
  );
  const { max, reserved, in_use } = row!;
  return { max, reserved, inUse: in_use, free: max - reserved - in_use };
}

/**
 * CPU seconds the server processes of database `name` have used since the first
 * read (from /proc; null elsewhere). Backends come and go (pools close idle
 * connections), so the count only grows: a known backend adds what it used since
 * the last read, a new one all it has used, one that is gone nothing more.
 */
export function backendCpuMeter(name: string): { name: 'database'; read(): Promise<number | null> } {
  let seen: Map<number, number> | null = null;
  let total = 0;
  return {
    name: 'database',
    async read() {
      const rows = await adminQuery<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name]);
      const now = new Map<number, number>();
      for (const { pid } of rows) {
        const cpu = processCpuSeconds(pid);
        if (cpu === null) continue; // ended between the query and the read
        now.set(pid, cpu);
      }
      if (rows.length && !now.size) return null; // no /proc here
      if (seen) for (const [pid, cpu] of now) total += cpu - (seen.get(pid) ?? 0);
      seen = now;
      return total;
    },
  };
}
