// Benchmark: what the seat change log costs the hold path. pgbench runs the claim
// (claim_seats, as the service sends it) on a 40,000-seat show, so most claims
// write seats and fire the trigger; it is measured with the change-log trigger
// disabled (the bare baseline: the claim as it was before the feed) and enabled
// with a publisher running every 100 ms as each instance runs it, in ABAB slices
// of one run. The bench sets up through the service's `migrate` command and plain
// SQL fixtures, and calls the database's functions as the service does
// (claim_seats from pgbench, publish_seat_changes from here).
//
//   npm run bench:feed     BENCH_SECONDS=8 BENCH_WARMUP_SECONDS=2 BENCH_CLIENTS=16 BENCH_ROUNDS=2
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

const ROWS = 40;
const SEATS_PER_ROW = 1000;
const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);

runBenchmark(async () => {
  const seconds = envNumber('BENCH_SECONDS', 8);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const clients = envNumber('BENCH_CLIENTS', 16);
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const workDir = path.join(REPO_ROOT, '.bench-out');
  const loadStart = os.loadavg()[0]!;
  const bench = await createBenchDatabase();
  note(`database ${bench.name}`);
  // The schema as the service makes it: its own `migrate` command (the build's).
  await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js'), 'migrate'], {
    cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: bench.url, BOXOFFICE_DEMO: '0', LOG_LEVEL: 'warn' },
  });
  const db = new pg.Client({ connectionString: bench.url });
  await db.connect();
  await db.query(`
    insert into venues (id, name, city) values ('ven_b', 'Bench', 'Bench');
    insert into halls (id, venue_id, name, seat_count) values ('hal_b', 'ven_b', 'Bowl', ${ROWS * SEATS_PER_ROW});
    insert into hall_seats (hall_id, seat_id, position, row_label, number, tier)
      select 'hal_b', chr(65 + r) || n, r * ${SEATS_PER_ROW} + n, chr(65 + r), n, 'standard'
        from generate_series(0, ${ROWS - 1}) r, generate_series(1, ${SEATS_PER_ROW}) n;
    insert into events (id, title) values ('evt_b', 'Bench');
    insert into shows (id, event_id, hall_id, starts_at, sale_opens_at, currency, price_tiers, hold_ttl_seconds, per_user_limit)
      values ('shw_b', 'evt_b', 'hal_b', now() + interval '7 days', now() - interval '1 day', 'EUR', '{"standard": 1000}', 1, 100000);
    insert into users (id, email, password_hash) select 'usr_' || i, 'b' || i || '@bench', 'x' from generate_series(1, ${clients}) i;
  `);
  // The show's seats, as creating a show makes them: one available row per seat of its hall.
  await db.query("insert into show_seats (show_id, seat_id, tier, status) select 'shw_b', seat_id, tier, 'available' from hall_seats where hall_id = 'hal_b'");
  if (process.env.BENCH_ROW_TRIGGER === '1') {
    // Experiment: the same log written by a row-level trigger with a WHEN clause.
    await db.query(`
      drop trigger show_seats_log_changes on show_seats;
      create function log_seat_change() returns trigger language plpgsql as $$
      begin
        insert into seat_changes (show_id, seat_id, status, seat_version)
        values (new.show_id, new.seat_id, case new.status when 'paying' then 'held' else new.status end, new.version);
        return null;
      end $$;
      create trigger show_seats_log_changes after update on show_seats for each row
        when ((case new.status when 'paying' then 'held' else new.status end) <> (case old.status when 'paying' then 'held' else old.status end)
              or new.hold_id is distinct from old.hold_id)
        execute function log_seat_change();`);
  }

  const script = [
    '\\set r random(0, 39)',
    `\\set n random(1, ${SEATS_PER_ROW - 1})`,
    '\\set n2 :n + 1',
    '\\set u :client_id + 1',
    "select * from claim_seats('shw_b', 'hold_' || md5(random()::text), 'usr_' || :u, array[chr(65 + :r) || :n, chr(65 + :r) || :n2]);",
    '',
  ].join('\n');

  const compact = async () => {
    await adminQuery('vacuum full show_seats', [], bench.url);
    await adminQuery('vacuum holds', [], bench.url);
    await adminQuery('delete from seat_changes', [], bench.url);
    await adminQuery('delete from seat_deltas', [], bench.url);
    await adminQuery('vacuum seat_changes', [], bench.url);
    await adminQuery('vacuum seat_deltas', [], bench.url);
  };
  const TARGETS = ['trigger off (bare)', 'trigger only', 'trigger + publisher'] as const;
  type Target = (typeof TARGETS)[number];
  const results = Object.fromEntries(TARGETS.map((t) => [t, [] as PgbenchResult[]])) as Record<Target, PgbenchResult[]>;
  const held = Object.fromEntries(TARGETS.map((t) => [t, [] as number[]])) as Record<Target, number[]>;
  const lags: { p50: number; p99: number; n: number }[] = [];
  const order: Target[] = [];
  for (let i = 0; i < rounds; i++) order.push(...(i % 2 ? [...TARGETS].reverse() : TARGETS));
  let published = 0;
  for (const target of order) {
    await compact();
    const on = target !== 'trigger off (bare)';
    await adminQuery(`alter table show_seats ${on ? 'enable' : 'disable'} trigger show_seats_log_changes`, [], bench.url);
    let publisher: NodeJS.Timeout | null = null;
    if (target === 'trigger + publisher') {
      let busy = false;
      publisher = setInterval(() => {
        if (busy) return;
        busy = true;
        // One publish pass, as each instance's seat feed runs it (limit 5,000 changes, 300 s of deltas kept).
        db.query<{ changes: number }>('select changes from publish_seat_changes($1, $2, $3)', [5000, 300, false])
          .then((p) => { published += p.rows[0]!.changes; }, (err: unknown) => note(`publish failed: ${String(err)}`))
          .finally(() => { busy = false; });
      }, 100);
    }
    note(`${target}: pgbench ${clients} clients`);
    const prefix = `hold_`;
    const result = await runPgbench({ label: on ? 'on' : 'off', databaseUrl: bench.url, clients, threads: 2, seconds, warmupSeconds, script, defines: {}, workDir });
    if (publisher) clearInterval(publisher);
    const [row] = await adminQuery<{ n: number }>(
      'select count(*)::int as n from holds where id like $1 and created_at between to_timestamp($2) and to_timestamp($3)',
      [`${prefix}%`, result.window.from, result.window.to], bench.url,
    );
    results[target].push(result);
    held[target].push(row!.n / Math.max(1, result.transactions));
    if (publisher) {
      const [lag] = await adminQuery<{ p50: number; p99: number; n: number }>(
        `select count(*)::int as n, percentile_cont(0.5) within group (order by extract(epoch from published_at - oldest_change_at)) * 1000 as p50,
                percentile_cont(0.99) within group (order by extract(epoch from published_at - oldest_change_at)) * 1000 as p99
           from seat_deltas`, [], bench.url);
      lags.push(lag!);
    }
  }
  await db.end();

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const tps = (t: Target) => mean(results[t].map((r) => r.tps));
  const bare = tps('trigger off (bare)');
  say('');
  say(`== bench:feed — claim_seats through pgbench (-M extended, ${clients} clients) on a ${ROWS * SEATS_PER_ROW}-seat show, 2 adjacent random seats, hold_ttl_seconds 1`);
  say(`   ${seconds} s measured per slice after ${warmupSeconds} s warm-up, ${rounds} slices per target in ABBA order; ${os.cpus().length} CPUs; load average ${fixed(loadStart, 1)} at start, ${fixed(os.loadavg()[0]!, 1)} at end`);
  say('');
  const rows = TARGETS.map((t) => {
    const rs = results[t];
    return [t, fixed(tps(t), 0), fixed(mean(rs.map((r) => r.latency.p50)), 2), fixed(mean(rs.map((r) => r.latency.p99)), 2),
      `${fixed(100 * mean(held[t]), 0)}`, String(rs.reduce((a, r) => a + r.failed, 0)), fixed(tps(t) / bare, 3)];
  });
  say(table(['target', 'claims/s', 'p50 ms', 'p99 ms', 'held %', 'failed', 'vs bare'], rows));
  say('');
  say(`published ${published} seat changes in the "trigger + publisher" slices (publisher every 100 ms); oldest write of a delta → published, per slice: ${lags.map((l) => `p50 ${fixed(l.p50, 1)} ms, p99 ${fixed(l.p99, 1)} ms (${l.n} deltas)`).join('; ')}`);
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary(TARGETS.filter((t) => t !== 'trigger off (bare)').map((t) => ({
    bench: 'feed', figure: `claims/s, ${t}`, value: tps(t), unit: 'tps', baseline: bare, baseline_label: 'trigger off (bare)',
  })));
});
