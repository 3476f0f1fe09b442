// Benchmark: what ways of keeping the live map's change feed cost the claim
// (issue #26). pgbench runs the 2-seat conditional claim (claim_seats, as the
// service sends it) on a 200-seat show with 1 s holds (most claims refused, as in
// a hot on-sale; BENCH_SEATS=40000: most claims write), at each client count, in
// one database per variant (each made by the service's `migrate` command, then
// changed as the variant says: each sets seat_changes LOGGED or UNLOGGED itself,
// whatever the migrations left), in ABBA slices of one run. The baseline is the
// claim with no feed at all (the trigger disabled). A publisher runs every 100 ms
// beside every variant that logs rows (the service's publish_seat_changes, or a
// drain of the same rows where the variant's shape is not the one it reads).
// Logical decoding (pgoutput) is not measured: it needs wal_level = logical, which
// the machine's server does not have (see bench/results/2026-12-04-feed-cost.md).
//
//   npm run bench:feed-cost   BENCH_SECONDS=6 BENCH_WARMUP_SECONDS=2 BENCH_CLIENTS=16,64 BENCH_ROUNDS=2 BENCH_SEATS=200
//   BENCH_VARIANTS="unlogged;claim writes rows, no trigger" (names separated by ";": only these, beside the bare claim)
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { runBenchmark } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { adminQuery, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT } from './lib/child.js';
import { runPgbench, type PgbenchResult } from './lib/pgbench.js';
import { envNumber, fixed, table } from './lib/stats.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);

interface Variant {
  name: string;
  /** SQL run once on the variant's database after the fixtures. */
  setup: string;
  /** The publisher's statement every 100 ms (null: nothing to publish). */
  publish: string | null;
  /** Tables emptied and vacuumed between slices. */
  tables: string[];
}

/** One row per claiming statement (the seats in arrays), logged or `unlogged `. */
function rowPerStatement(name: string, unlogged: '' | 'unlogged '): Variant {
  return {
    name,
    setup: `
      create ${unlogged}table seat_change_sets (show_id text not null, seat_ids text[] not null, statuses text[] not null,
                                     seat_versions bigint[] not null, changed_at timestamptz not null default clock_timestamp());
      create or replace function log_seat_changes() returns trigger language plpgsql as $$
      begin
        insert into seat_change_sets (show_id, seat_ids, statuses, seat_versions)
        select n.show_id, array_agg(n.seat_id), array_agg(case n.status when 'paying' then 'held' else n.status end), array_agg(n.version)
          from new_seats n join old_seats o on o.show_id = n.show_id and o.seat_id = n.seat_id
         where (case n.status when 'paying' then 'held' else n.status end) <> (case o.status when 'paying' then 'held' else o.status end)
            or n.hold_id is distinct from o.hold_id
         group by n.show_id;
        return null;
      end $$;`,
    publish: 'delete from seat_change_sets', tables: ['seat_change_sets'],
  };
}

const PUBLISH = 'select changes from publish_seat_changes(5000, 300, false)';
const VARIANTS: Variant[] = [
  { name: 'no feed (bare)', setup: 'alter table show_seats disable trigger show_seats_log_changes', publish: null, tables: [] },
  { name: 'trigger, row per seat (0011)', setup: 'alter table seat_changes set logged', publish: PUBLISH, tables: ['seat_changes', 'seat_deltas'] },
  { name: 'unlogged', setup: 'alter table seat_changes set unlogged', publish: PUBLISH, tables: ['seat_changes', 'seat_deltas'] },
  {
    name: 'unlogged, no index', setup: 'alter table seat_changes set unlogged; drop index seat_changes_order',
    publish: PUBLISH, tables: ['seat_changes', 'seat_deltas'],
  },
  rowPerStatement('row per statement (arrays)', ''),
  rowPerStatement('unlogged row per statement', 'unlogged '),
  // Rows written by the claim itself (its update returns them into an insert), no
  // trigger: only the claim is changed here, every other seat move would need the same.
  { name: 'claim writes rows, no trigger', setup: 'claim-writes', publish: PUBLISH, tables: ['seat_changes', 'seat_deltas'] },
];

/** claim_seats as migrated, its update's rows inserted into seat_changes by the same statement. */
async function claimWritesRows(db: pg.Client): Promise<void> {
  const [{ def }] = (await db.query<{ def: string }>("select pg_get_functiondef('claim_seats(text,text,text,text[])'::regprocedure) as def")).rows as [{ def: string }];
  const from = /returning s\.seat_id\s*\)/;
  if (!from.test(def)) throw new Error('claim_seats: its update is not where this bench expects it');
  await db.query('alter table seat_changes set logged');
  const to = `returning s.seat_id, s.version
  ), logged as (
    insert into seat_changes (show_id, seat_id, status, seat_version)
    select p_show, c.seat_id, 'held', c.version from claimed c
  )`;
  await db.query(def.replace(from, to));
  await db.query('alter table show_seats disable trigger show_seats_log_changes');
}

runBenchmark(async () => {
  // 200 seats with 1 s holds: most claims are refused (the seats are taken), as on a hot on-sale;
  // BENCH_SEATS=40000: most claims write, as the claim's throughput limit (bench:feed).
  const SEATS = Math.max(20, Math.round(envNumber('BENCH_SEATS', 200) / 20) * 20);
  const seconds = envNumber('BENCH_SECONDS', 6);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const clientCounts = (process.env.BENCH_CLIENTS ?? '16,64').split(',').map(Number);
  const only = process.env.BENCH_VARIANTS?.split(';');
  const variants = only ? VARIANTS.filter((v, i) => i === 0 || only.includes(v.name)) : VARIANTS;
  const maxClients = Math.max(...clientCounts);
  const workDir = path.join(REPO_ROOT, '.bench-out');
  const loadStart = os.loadavg()[0]!;

  const dbs = new Map<string, { url: string; client: pg.Client }>();
  for (const v of variants) {
    const bench = await createBenchDatabase();
    note(`${v.name}: database ${bench.name}`);
    await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js'), 'migrate'], {
      cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: bench.url, BOXOFFICE_DEMO: '0', LOG_LEVEL: 'warn' },
    });
    const client = new pg.Client({ connectionString: bench.url });
    // A connection ended under it (the server, or someone dropping the database) fails the slice, not the process: cleanup still runs.
    client.on('error', (err) => note(`${v.name}: publisher connection: ${err.message}`));
    await client.connect();
    await client.query(`
      insert into venues (id, name, city) values ('ven_b', 'Bench', 'Bench');
      insert into halls (id, venue_id, name, seat_count) values ('hal_b', 'ven_b', 'Hall', ${SEATS});
      insert into hall_seats (hall_id, seat_id, position, row_label, number, tier)
        select 'hal_b', 'R' || r || '-' || n, r * 20 + n, 'R' || r, n, 'standard'
          from generate_series(0, ${SEATS / 20 - 1}) r, generate_series(1, 20) n;
      insert into events (id, title) values ('evt_b', 'Bench');
      insert into shows (id, event_id, hall_id, starts_at, sale_opens_at, currency, price_tiers, hold_ttl_seconds, per_user_limit)
        values ('shw_b', 'evt_b', 'hal_b', now() + interval '7 days', now() - interval '1 day', 'EUR', '{"standard": 1000}', 1, 100000);
      insert into users (id, email, password_hash) select 'usr_' || i, 'b' || i || '@bench', 'x' from generate_series(1, ${maxClients}) i;
      insert into show_seats (show_id, seat_id, tier, status) select 'shw_b', seat_id, tier, 'available' from hall_seats where hall_id = 'hal_b';
    `);
    if (v.setup === 'claim-writes') await claimWritesRows(client);
    else if (v.setup) await client.query(v.setup);
    dbs.set(v.name, { url: bench.url, client });
  }

  // Two adjacent seats of a random row (seats 1..19 and the next), as the service sends the claim.
  const script = [
    `\\set r random(0, ${SEATS / 20 - 1})`,
    '\\set n random(1, 19)',
    '\\set n2 :n + 1',
    '\\set u :client_id + 1',
    "select * from claim_seats('shw_b', 'hold_' || md5(random()::text), 'usr_' || :u, array['R' || :r || '-' || :n, 'R' || :r || '-' || :n2]);",
    '',
  ].join('\n');

  type Key = `${string}@${number}`;
  const results = new Map<Key, PgbenchResult[]>();
  const held = new Map<Key, number[]>();
  const published = new Map<string, number>();
  for (const clients of clientCounts) {
    const order: Variant[] = [];
    for (let i = 0; i < rounds; i++) order.push(...(i % 2 ? [...variants].reverse() : variants));
    for (const v of order) {
      const { url, client } = dbs.get(v.name)!;
      await adminQuery('vacuum full show_seats', [], url);
      await adminQuery('delete from holds', [], url);
      await adminQuery("update show_seats set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null", [], url);
      for (const t of v.tables) await adminQuery(`delete from ${t}`, [], url);
      for (const t of ['holds', ...v.tables]) await adminQuery(`vacuum ${t}`, [], url);
      await adminQuery('checkpoint', [], url);
      let publisher: NodeJS.Timeout | null = null;
      if (v.publish) {
        let busy = false;
        publisher = setInterval(() => {
          if (busy) return;
          busy = true;
          client.query(v.publish!)
            .then((p) => { published.set(v.name, (published.get(v.name) ?? 0) + (p.rows[0]?.changes ?? p.rowCount ?? 0)); },
              (err: unknown) => note(`publish failed: ${String(err)}`))
            .finally(() => { busy = false; });
        }, 100);
      }
      note(`${v.name}: pgbench ${clients} clients`);
      const result = await runPgbench({ label: `feed-cost-${clients}`, databaseUrl: url, clients, threads: 2, seconds, warmupSeconds, script, defines: {}, workDir });
      if (publisher) clearInterval(publisher);
      const [row] = await adminQuery<{ n: number }>(
        "select count(*)::int as n from holds where created_at between to_timestamp($1) and to_timestamp($2)",
        [result.window.from, result.window.to], url,
      );
      const key: Key = `${v.name}@${clients}`;
      results.set(key, [...(results.get(key) ?? []), result]);
      held.set(key, [...(held.get(key) ?? []), row!.n / Math.max(1, result.transactions)]);
    }
  }
  for (const { client } of dbs.values()) await client.end();

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const tps = (key: Key) => mean(results.get(key)!.map((r) => r.tps));
  say('');
  say(`== bench:feed-cost — claim_seats through pgbench (-M extended) on a ${SEATS}-seat show, 2 adjacent random seats, hold_ttl_seconds 1, publisher every 100 ms`);
  say(`   ${seconds} s measured per slice after ${warmupSeconds} s warm-up, ${rounds} slices per variant in ABBA order; ${os.cpus().length} CPUs; load average ${fixed(loadStart, 1)} at start, ${fixed(os.loadavg()[0]!, 1)} at end`);
  const summary = [];
  for (const clients of clientCounts) {
    const bare = tps(`${variants[0]!.name}@${clients}`);
    say('');
    say(`-- ${clients} clients`);
    say(table(['variant', 'claims/s', 'p50 ms', 'p90 ms', 'p99 ms', 'held %', 'failed', 'vs bare'], variants.map((v) => {
      const key: Key = `${v.name}@${clients}`;
      const rs = results.get(key)!;
      return [v.name, fixed(tps(key), 0), fixed(mean(rs.map((r) => r.latency.p50)), 2), fixed(mean(rs.map((r) => r.latency.p90)), 2),
        fixed(mean(rs.map((r) => r.latency.p99)), 2), fixed(100 * mean(held.get(key)!), 0), String(rs.reduce((a, r) => a + r.failed, 0)), fixed(tps(key) / bare, 3)];
    })));
    for (const v of variants.slice(1)) {
      summary.push({ bench: 'feed-cost', figure: `claims/s, ${v.name}, ${clients} clients`, value: tps(`${v.name}@${clients}`), unit: 'tps', baseline: bare, baseline_label: 'no feed (bare)' });
    }
  }
  say('');
  say(`published or drained: ${[...published].map(([k, n]) => `${k} ${n}`).join('; ')}`);
  writeSummary(summary);
});
