// The start's warm-up: /readyz answers 503 "warming up" while it runs and 200 after;
// it opens the pool, reads the maps of shows on sale, and leaves no row behind.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import type { Queryable } from '../../src/db/client.js';

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let t: TestService;
let showId: string;
beforeAll(async () => {
  t = await startTestService({ sweeper: false, config: { seatMapCacheMs: 60_000, warmupMs: 20_000 }, logger: { level: 'info', stream: capture } });
  ({ showId } = await createShow(t));
});
afterAll(async () => { await t?.close(); });

/** Rows of every table of the schema, by table: what a warm-up must leave as it found it. */
async function rowCounts(db: Queryable): Promise<Record<string, number>> {
  const tables = await db.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    counts[name] = Number((await db.query<{ n: string }>(`select count(*) as n from "${name}"`)).rows[0]!.n);
  }
  return counts;
}

describe('warm-up before ready', () => {
  it('answers /readyz 503 "warming up" while it runs, 200 after; writes no row; opens the pool and reads the maps', async () => {
    const db = t.service.ctx.db;
    const before = await rowCounts(db);
    const logged = lines.length;
    const warming = t.service.warm();
    const during = await t.http.get('/readyz');
    const report = await warming;
    const after = await t.http.get('/readyz');

    expect(during.status).toBe(503);
    expect(during.body.code).toBe('NOT_READY');
    expect(during.body.detail).toBe('warming up');
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect(after.status).toBe(200);
    expect(report.phase).toBe('warm');
    expect(report.connections).toBe(t.service.ctx.config.poolSize);
    expect(report.statements).toBeGreaterThanOrEqual(3 * t.service.ctx.config.poolSize);
    expect(report.shows).toBe(1);
    expect(report.requests).toBeGreaterThan(0);
    // The map is in memory: the first buyer's read needs no database.
    expect(t.service.ctx.seatMaps.cached(showId)).toBeDefined();
    expect(await rowCounts(db)).toEqual(before);
    // Its reads come from an address no client has, and are logged at debug: no line at info for each.
    expect(lines.slice(logged).filter((l) => l.includes('/seats'))).toEqual([]);
  });

  it('serves anyway once WARMUP_MS has passed, and says it was cut short', async () => {
    const svc = await startTestService({ sweeper: false, config: { warmupMs: 1 } });
    try {
      const report = await svc.service.warm();
      expect(report.phase).toBe('cut short');
      expect(report.why).toContain('WARMUP_MS');
      expect((await svc.http.get('/readyz')).status).toBe(200);
    } finally {
      await svc.close();
    }
  });
});
