// test/support/pgCluster.ts: a throwaway cluster starts, keeps what was committed
// across a fast stop and across kill -9 (recovery), loses what was not, and leaves
// neither a process nor its directory behind.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startCluster, type PgCluster } from '../support/pgCluster.js';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

describe('pgCluster', () => {
  let cluster: PgCluster | null = null;
  afterAll(async () => { await cluster?.destroy(); });

  it('runs a PostgreSQL 15 of its own that survives stop and kill -9 with its committed rows', async () => {
    cluster = await startCluster();
    const url = cluster.url();
    expect(cluster.port).toBeGreaterThan(0);
    expect(cluster.port).not.toBe(5432);
    const version = await withClient(url, async (c) => (await c.query<{ v: string }>("select current_setting('server_version_num') as v")).rows[0]!.v);
    expect(Number(version)).toBeGreaterThanOrEqual(150000);
    expect(Number(version)).toBeLessThan(160000);
    await withClient(url, (c) => c.query('create table t (n int); insert into t values (1)'));

    await cluster.stop();
    expect(cluster.running).toBe(false);
    await expect(withClient(url, (c) => c.query('select 1'))).rejects.toThrow();
    await cluster.start();
    expect(await withClient(url, async (c) => (await c.query('select n from t')).rows)).toEqual([{ n: 1 }]);

    // An open transaction's row is lost by a crash; the committed one is recovered.
    const open = new pg.Client({ connectionString: url });
    open.on('error', () => {});
    await open.connect();
    await open.query('begin; insert into t values (2)');
    await withClient(url, (c) => c.query('insert into t values (3)'));
    await cluster.kill();
    await open.end().catch(() => {});
    expect(cluster.running).toBe(false);
    await cluster.start();
    expect(await withClient(url, async (c) => (await c.query('select n from t order by n')).rows)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('destroy removes the data directory', async () => {
    const c = await startCluster();
    let dir = '';
    try {
      dir = await withClient(c.url(), async (cl) => (await cl.query<{ d: string }>("select current_setting('data_directory') as d")).rows[0]!.d);
      expect(existsSync(dir)).toBe(true);
    } finally {
      await c.destroy();
    }
    expect(existsSync(dir)).toBe(false);
    expect(c.running).toBe(false);
  });
});
