// bench/lib/delayProxy.ts: every chunk waits the fixed delay each way, so a round
// trip to PostgreSQL through it takes at least twice the delay; bytes arrive whole
// and in order; close() drops what is open.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { listenDelayProxy, type DelayProxy } from '../../bench/lib/delayProxy.js';
import { ADMIN_URL } from '../support/database.js';

describe('delay proxy', () => {
  let proxy: DelayProxy | null = null;
  afterAll(async () => { await proxy?.close(); });

  it('adds the delay to every round trip each way, and keeps the bytes whole and in order', async () => {
    const target = new URL(ADMIN_URL);
    proxy = await listenDelayProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432), delayMs: 40 });
    const direct = new pg.Client({ connectionString: ADMIN_URL });
    const url = new URL(ADMIN_URL);
    url.port = String(proxy.port);
    const slowed = new pg.Client({ connectionString: url.toString() });
    slowed.on('error', () => {});
    await Promise.all([direct.connect(), slowed.connect()]);
    try {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await slowed.query('select 1');
        times.push(performance.now() - t);
      }
      // One round trip: the query's chunk 40 ms one way, the answer's 40 ms back.
      expect(Math.min(...times)).toBeGreaterThanOrEqual(79);
      const big = "select string_agg(md5(g::text), '' order by g) as s from generate_series(1, 40000) g";
      const [a, b] = await Promise.all([direct.query<{ s: string }>(big), slowed.query<{ s: string }>(big)]);
      expect(b.rows[0]!.s.length).toBe(40000 * 32);
      expect(createHash('sha1').update(b.rows[0]!.s).digest('hex')).toBe(createHash('sha1').update(a.rows[0]!.s).digest('hex'));
      expect(proxy.accepted).toBe(1);
    } finally {
      await Promise.all([direct.end(), slowed.end().catch(() => {})]);
    }
    await proxy.close();
    const after = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 1000 });
    after.on('error', () => {});
    await expect(after.connect()).rejects.toThrow();
    await after.end().catch(() => {});
    proxy = null;
  });
});
