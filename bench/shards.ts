// Benchmark: shards by show (issue #25). Holds decided per second with the hot
// shows spread over 1, 2 and 3 shards, and without sharding, in one run.
//
// All shards live on this machine's one PostgreSQL and share its 2 cores with the
// service and the load generator, so a shard's capacity is made finite on purpose:
// every shard (and, for "no sharding", the one database) is reached through its own
// delay proxy (bench/lib/delayProxy.ts, a child process) adding BENCH_DELAY_MS to
// every packet each way, with a pool of BENCH_POOL_SIZE connections (DB_POOL_SIZE,
// which sizes every shard's pool). A shard then decides at most about
// P / (round trips per hold × 2 × delay) holds a second, far below what Node and
// PostgreSQL can do here, so each added shard adds capacity. The control database
// (accounts, catalog, placements) is reached directly: a hold reads it only for
// cached facts (placement, known account).
//
// Four services run side by side, each on its own fresh databases: no sharding
// (DATABASE_URL through a proxy), 1 shard (SHARD_URLS, one proxied shard), 2 and 3
// shards. Each has the same 6 hot shows (pinned evenly with `shard`), holds that
// last 1 s (so seats keep coming free, as in bench:holds) and one buyer per
// connection; every connection keeps asking its show for 2 random adjacent seats.
// The measured slices are taken in ABBA order over the four, so other work on this
// shared machine falls on all of them alike.
//
//   npm run bench:shards     BENCH_SECONDS=12 BENCH_WARMUP_SECONDS=2 BENCH_ROUNDS=2
//   BENCH_CONNECTIONS=48     BENCH_POOL_SIZE=2 BENCH_DELAY_MS=10 BENCH_SHOWS=6
import os from 'node:os';
import { runBenchmark } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { ADMIN_URL, createBenchDatabase, withDatabase, type BenchDatabase } from './lib/db.js';
import { freePort, machineBusySeconds, startDelayProxy, startService, type Child } from './lib/child.js';
import { adminToken, closeApiClient, createShow, registerBuyers, type ShowFixture } from './lib/api.js';
import { interleave, reportErrors, runLoad, type RequestSpec } from './lib/load.js';
import { scrapeTrips, tripsBetween } from './lib/dbTrips.js';
import { envNumber, fixed, table } from './lib/stats.js';

const ROWS = 20;
const SEATS_PER_ROW = 30;
const GOAL_2 = 1.8;
const GOAL_3 = 2.6;
const GOAL_ROUTER = 0.95;

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const clock = () => new Date().toISOString().slice(11, 19);

const TARGETS = ['no sharding', '1 shard', '2 shards', '3 shards'] as const;
type Target = (typeof TARGETS)[number];

interface World {
  target: Target;
  service: Child;
  shows: ShowFixture[];
  specs: RequestSpec[];
  databases: BenchDatabase[];
  proxies: Child[];
}

runBenchmark(async () => {
  const seconds = envNumber('BENCH_SECONDS', 12);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const connections = envNumber('BENCH_CONNECTIONS', 48);
  const poolSize = envNumber('BENCH_POOL_SIZE', 2);
  const delayMs = envNumber('BENCH_DELAY_MS', 10);
  const showCount = envNumber('BENCH_SHOWS', 6);
  const loadStart = os.loadavg().map((x) => fixed(x, 2)).join(' ');
  const pgAt = new URL(ADMIN_URL);
  const pg = { host: pgAt.hostname, port: Number(pgAt.port || 5432) };

  /** A database reached through its own delay proxy. */
  const proxied = async (db: BenchDatabase): Promise<{ url: string; proxy: Child }> => {
    const proxy = await startDelayProxy(pg, delayMs);
    const u = new URL(db.url);
    u.hostname = '127.0.0.1';
    u.port = String(proxy.port);
    return { url: withDatabase(u.toString(), db.name), proxy };
  };

  const build = async (target: Target, shardCount: number): Promise<World> => {
    note(`[${clock()}] ${target}: databases, proxies, service…`);
    const control = await createBenchDatabase();
    const databases = [control];
    const proxies: Child[] = [];
    const env: Record<string, string> = {
      DB_POOL_SIZE: String(poolSize),
      // Four services run at once: each its own bundled payment simulator's port.
      PAYSIM_PORT: String(await freePort()),
      // The per-instance purchase limit must not be what caps a run: the shards are.
      PURCHASE_CONCURRENCY: '100000', PURCHASE_CONCURRENCY_MIN: '100000', PURCHASE_CONCURRENCY_MAX: '100000',
    };
    let databaseUrl: string;
    const shardNames: (string | undefined)[] = [];
    if (shardCount === 0) {
      const p = await proxied(control);
      proxies.push(p.proxy);
      databaseUrl = p.url;
      shardNames.push(undefined);
    } else {
      databaseUrl = control.url;
      const entries: string[] = [];
      for (let i = 0; i < shardCount; i++) {
        const db = await createBenchDatabase();
        databases.push(db);
        const p = await proxied(db);
        proxies.push(p.proxy);
        const name = `s${i + 1}`;
        entries.push(`${name}=${p.url}`);
        shardNames.push(name);
      }
      env.SHARD_URLS = entries.join(',');
    }
    const service = await startService({ databaseUrl, env });
    const token = await adminToken(service.baseUrl);
    const shows: ShowFixture[] = [];
    for (let i = 0; i < showCount; i++) {
      shows.push(await createShow(service.baseUrl, token, {
        rows: ROWS, seatsPerRow: SEATS_PER_ROW, hold_ttl_seconds: 1, per_user_limit: 1000, shard: shardNames[i % shardNames.length],
      }));
    }
    note(`[${clock()}] ${target}: registering ${connections} buyers…`);
    const buyers = await registerBuyers(service.baseUrl, connections);
    // Connection k asks show k mod shows: the shows get equal shares of the connections.
    const specs: RequestSpec[] = buyers.map((b, k) => ({
      method: 'POST',
      path: `/v1/shows/${shows[k % shows.length]!.showId}/holds`,
      headers: ['content-type', 'application/json', 'authorization', `Bearer ${b.token}`],
      body: null,
    }));
    return { target, service, shows, specs, databases, proxies };
  };

  const worlds = new Map<Target, World>();
  worlds.set('no sharding', await build('no sharding', 0));
  worlds.set('1 shard', await build('1 shard', 1));
  worlds.set('2 shards', await build('2 shards', 2));
  worlds.set('3 shards', await build('3 shards', 3));
  await closeApiClient();

  const bodies: Buffer[] = [];
  for (const row of worlds.get('no sharding')!.shows[0]!.rows) {
    for (let n = 1; n < SEATS_PER_ROW; n++) bodies.push(Buffer.from(JSON.stringify({ seats: [`${row}${n}`, `${row}${n + 1}`] })));
  }
  const SEAT_UNAVAILABLE = Buffer.from('"SEAT_UNAVAILABLE"');
  /** Request-path round trips and answers per target, over whole slices (warm-up included). */
  const trips = new Map<Target, { roundTrips: number; answers: number; seconds: number; byOrigin: Map<string, { roundTrips: number; seconds: number }> }>(
    TARGETS.map((t) => [t, { roundTrips: 0, answers: 0, seconds: 0, byOrigin: new Map() }]),
  );

  note(`[${clock()}] measuring: ${TARGETS.join(', ')} at C=${connections}, ${rounds} round(s) of ${fixed(seconds / rounds, 1)} s each, ABBA order`);
  const results = await interleave<Target>(TARGETS, rounds, seconds, async (target, s, round) => {
    const w = worlds.get(target)!;
    const before = await scrapeTrips(w.service.baseUrl);
    const result = await runLoad({
      label: rounds > 1 ? `${target} ${round + 1}/${rounds}` : target,
      origin: w.service.baseUrl, connections, seconds: s, warmupSeconds,
      cpuMeters: [{ name: 'server', read: () => w.service.cpuSeconds() }, { name: 'machine', read: machineBusySeconds }],
      outcomes: ['held', 'seat_unavailable'],
      next(conn) {
        const spec = w.specs[conn]!;
        spec.body = bodies[(Math.random() * bodies.length) | 0]!;
        return spec;
      },
      wantBody: (status) => status !== 201,
      classify: (status, body) => (status === 201 ? 0 : status === 409 && body && body.includes(SEAT_UNAVAILABLE) ? 1 : -1),
      errorKey: (status, body) => `HTTP ${status} ${/"code":"([A-Z_]+)"/.exec(body?.toString() ?? '')?.[1] ?? ''}`.trim(),
    });
    const t = trips.get(target)!;
    const between = tripsBetween(before, await scrapeTrips(w.service.baseUrl));
    t.roundTrips += between.get('request')?.roundTrips ?? 0;
    t.seconds += s + warmupSeconds;
    for (const [origin, o] of between) {
      const sum = t.byOrigin.get(origin) ?? { roundTrips: 0, seconds: 0 };
      sum.roundTrips += o.roundTrips;
      sum.seconds += o.seconds;
      t.byOrigin.set(origin, sum);
    }
    // The scrapes take in the warm-up too: its answers are estimated at the window's rate.
    t.answers += result.answered * ((s + warmupSeconds) / s);
    return result;
  });
  const tripsPerAnswer = (target: Target): number => {
    const t = trips.get(target)!;
    return t.roundTrips / Math.max(1, t.answers);
  };

  const logs = [...worlds.values()].map((w) => ({ target: w.target, logs: w.service.logs }));
  for (const w of worlds.values()) {
    await w.service.stop();
    for (const p of w.proxies) await p.stop();
    for (const db of w.databases) await db.drop();
  }

  const rate = (t: Target) => results[t].rate;
  const r2 = rate('2 shards') / rate('1 shard');
  const r3 = rate('3 shards') / rate('1 shard');
  const router = rate('1 shard') / rate('no sharding');
  const rtOne = tripsPerAnswer('1 shard');

  say('');
  say(`== bench:shards — POST /v1/shows/{id}/holds, ${showCount} hot shows of ${ROWS * SEATS_PER_ROW} seats spread evenly over the shards, 2 random adjacent seats, hold_ttl_seconds 1, closed loop, C=${connections} (${fixed(connections / showCount, 0)} per show)`);
  say(`   ${seconds} s measured per target (${rounds} slices, ABBA order over the four targets), each slice after ${warmupSeconds} s warm-up; ${os.cpus().length} CPUs; node ${process.version}`);
  say(`   load average (1/5/15 min) ${loadStart} at start, ${os.loadavg().map((x) => fixed(x, 2)).join(' ')} at end (other work on this shared machine shows up here)`);
  say(`   capacity per shard: its own delay proxy adding ${delayMs} ms a packet each way (a round trip >= ${2 * delayMs} ms) and DB_POOL_SIZE=${poolSize} connections;`);
  say(`   the hold path made ${fixed(rtOne, 2)} request round trips per answer (1 shard, /metrics), so a shard decides at most about ${poolSize} / (${fixed(rtOne, 2)} × ${2 * delayMs} ms) = ${fixed(poolSize / (Math.max(rtOne, 1e-9) * 2 * delayMs / 1000), 0)} holds/s`);
  say('   no sharding: DATABASE_URL through the same kind of proxy and pool; with shards the control database is reached directly (the hold path reads only cached facts from it)');
  say('   PURCHASE_CONCURRENCY(_MIN/_MAX)=100000: the per-instance limit is not what caps a run');
  say('');
  const rows = TARGETS.map((t) => {
    const r = results[t];
    const errors = [...r.errors.values()].reduce((a, n) => a + n, 0);
    return [t, fixed(r.rate, 0), fixed((100 * r.counts[0]!) / Math.max(1, r.decided), 1), fixed(r.latency.p50, 1), fixed(r.latency.p99, 1), String(errors), fixed(tripsPerAnswer(t), 2)];
  });
  say(table(['target', 'decided/s', 'held %', 'p50 ms', 'p99 ms', 'errors', 'round trips/answer'], rows));
  say('');
  const verdict = (what: string, v: number, goal: number) => `${what}: ${fixed(v, 2)}× (goal >= ${goal}: ${v >= goal ? 'met' : 'MISSED'})`;
  say(verdict('2 shards vs 1 shard', r2, GOAL_2));
  say(verdict('3 shards vs 1 shard', r3, GOAL_3));
  say(verdict('1 shard via SHARD_URLS vs no sharding (the router\'s own cost)', router, GOAL_ROUTER));
  say('');
  say('round trips a second by origin over the slices, per shard (request and the workers; "s waited/s" = time from asking to answer, pool wait included):');
  for (const t of TARGETS) {
    const x = trips.get(t)!;
    const shards = Math.max(1, TARGETS.indexOf(t));
    const parts = [...x.byOrigin].sort((a, b) => b[1].roundTrips - a[1].roundTrips)
      .map(([origin, o]) => `${origin} ${fixed(o.roundTrips / x.seconds / shards, 1)} (${fixed(o.seconds / x.seconds / shards, 2)} s waited/s)`);
    say(`   ${t}: ${parts.join(', ')}`);
  }
  say('');
  say('notes: decided = 201 held or 409 SEAT_UNAVAILABLE; anything else (503, timeouts, …) is an error, counted apart and listed below.');
  for (const t of TARGETS) {
    const e = reportErrors(results[t]);
    if (e) say(e);
  }
  for (const { target, logs: l } of logs) {
    if (l.count) say(`the ${target} service printed ${l.count} lines after it was ready (LOG_LEVEL=warn); the last: ${l.last.slice(-3).join(' | ').slice(0, 600)}`);
  }

  writeSummary([
    { bench: 'shards', figure: 'holds decided/s, 2 shards vs 1', value: rate('2 shards'), unit: '/s', baseline: rate('1 shard'), baseline_label: '1 shard', goal: `ratio >= ${GOAL_2}`, met: r2 >= GOAL_2 },
    { bench: 'shards', figure: 'holds decided/s, 3 shards vs 1', value: rate('3 shards'), unit: '/s', baseline: rate('1 shard'), baseline_label: '1 shard', goal: `ratio >= ${GOAL_3}`, met: r3 >= GOAL_3 },
    { bench: 'shards', figure: 'holds decided/s, 1 shard vs no sharding', value: rate('1 shard'), unit: '/s', baseline: rate('no sharding'), baseline_label: 'no sharding', goal: `ratio >= ${GOAL_ROUTER}`, met: router >= GOAL_ROUTER },
  ]);
});
