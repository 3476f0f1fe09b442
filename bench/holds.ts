// Benchmark: the hold race. Every connection keeps asking for 2 random adjacent
// seats of one 200-seat show whose holds last 1 s, so seats keep expiring and
// the race never ends. Our service is compared, at the same concurrency and in
// the same run, with a bare Fastify route running the same claim SQL through a
// pg Pool of the same size, and with pgbench running that SQL directly.
//
//   npm run bench:holds            BENCH_SECONDS=10 BENCH_WARMUP_SECONDS=2
//   BENCH_CONNECTIONS=64,256       BENCH_POOL_SIZE=20 (service and bare route)
//   BENCH_PGBENCH_MAX_CLIENTS=80   BENCH_PGBENCH_USERS=client|random
//   BENCH_ROUNDS=2                 slices per target, taken in ABBA order
//   BENCH_CPU_PROF=1               profile the service into .bench-out/prof
//   BENCH_WAITING_ROOM=0           skip the third target: the same race on a show with
//                                  waiting_room: true, every connection sending a valid
//                                  Admission-Token got through the queue (join + admit)
import os from 'node:os';
import path from 'node:path';
import { runBenchmark } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { adminQuery, backendCpuMeter, connectionBudget, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT, machineBusySeconds, profileFlags, startBare, startService, type Child } from './lib/child.js';
import { cpuTable, type CpuRow } from './lib/report.js';
import { adminToken, buyerEmail, call, closeApiClient, createShow, registerBuyers, type Buyer } from './lib/api.js';
import { interleave, reportErrors, type LoadResult, type RequestSpec } from './lib/load.js';
import { adjacentPairs, compactSeats, holdLoad as raceLoad, holdSpecs } from './lib/holdRace.js';
import { runPgbench, type PgbenchResult } from './lib/pgbench.js';
import { envList, envNumber, fixed, table } from './lib/stats.js';

const ROWS = 10;
const SEATS_PER_ROW = 20;
const GOAL_RATIO = 0.7;
const GOAL_P99_MS = 50;
const GOAL_ROOM_RATIO = 0.9;

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);

runBenchmark(async () => {
  const seconds = envNumber('BENCH_SECONDS', 10);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const levels = envList('BENCH_CONNECTIONS', [64, 256]);
  const poolSize = envNumber('BENCH_POOL_SIZE', 20);
  const pgbenchMax = envNumber('BENCH_PGBENCH_MAX_CLIENTS', 80);
  const pgbenchUsers = process.env.BENCH_PGBENCH_USERS === 'random' ? 'random' : 'client';
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const withRoom = process.env.BENCH_WAITING_ROOM !== '0';
  const workDir = path.join(REPO_ROOT, '.bench-out');
  const loadStart = os.loadavg()[0]!;

  const db = await createBenchDatabase();
  note(`database ${db.name}`);
  const dbCpu = backendCpuMeter(db.name);
  // The room admits fast (60,000 a minute) so every bench buyer is in within a tick or
  // two, and its admissions outlive the run (the grace period sets their lifetime).
  const service = await startService({
    databaseUrl: db.url,
    env: { DB_POOL_SIZE: String(poolSize), WAITING_ROOM_ADMIT_PER_MINUTE: '60000', WAITING_ROOM_GRACE_SECONDS: '3600' },
    nodeFlags: profileFlags('boxoffice-holds'),
  });
  note(`service pid ${service.pid} on ${service.baseUrl}`);

  const token = await adminToken(service.baseUrl);
  const show = await createShow(service.baseUrl, token, { rows: ROWS, seatsPerRow: SEATS_PER_ROW, hold_ttl_seconds: 1, per_user_limit: 1000 });
  const roomShow = withRoom
    ? await createShow(service.baseUrl, token, { rows: ROWS, seatsPerRow: SEATS_PER_ROW, hold_ttl_seconds: 1, per_user_limit: 1000, waiting_room: true })
    : null;
  const buyerCount = Math.max(...levels);
  note(`registering ${buyerCount} buyers (scrypt, 16 at a time)…`);
  const buyers = await registerBuyers(service.baseUrl, buyerCount, (n) => { if (n % 64 === 0 || n === buyerCount) note(`  ${n}/${buyerCount} buyers`); });
  const admissions = roomShow ? await admitAll(service.baseUrl, roomShow.showId, buyers) : [];
  await closeApiClient();

  // Everything the load generator sends is built here, once; both targets get identical requests.
  const bodies = adjacentPairs(show.rows, SEATS_PER_ROW);
  const specs = holdSpecs(show.showId, buyers);
  const roomSpecs: RequestSpec[] = roomShow ? holdSpecs(roomShow.showId, buyers, (_b, i) => ['admission-token', admissions[i]!]) : [];
  const holdLoad = (label: string, server: Child, connections: number, seconds: number, load = specs) =>
    raceLoad({ label, server, connections, seconds, warmupSeconds, specs: load, bodies, dbCpu });
  const compact = () => compactSeats(db.url);
  const [autovacuum] = await adminQuery<{ on: string }>("select current_setting('autovacuum') as on");
  const budget = await connectionBudget();
  if (budget.free < 2 * poolSize + 10) {
    note(`warning: only ${budget.free} connections free on the shared server; the service and the bare route may open ${2 * poolSize}`);
  }

  // The bare route runs next to the service for the whole HTTP phase (both pools
  // stay open, 2 × pool connections), so it is as warm as the service is.
  const bareServer = await startBare('claim', { BARE_DATABASE_URL: db.url, BARE_POOL_SIZE: String(poolSize) }, profileFlags('bare-claim'));
  const servers = { boxoffice: service, 'bare route': bareServer, 'boxoffice + room': service };
  const targets = withRoom ? (['boxoffice', 'bare route', 'boxoffice + room'] as const) : (['boxoffice', 'bare route'] as const);
  const http: { service: LoadResult; bare: LoadResult; room: LoadResult | null }[] = [];
  for (const c of levels) {
    note(`\nC=${c}: ${targets.join(', ')} (same SQL, pool ${poolSize}), ${rounds} round(s) each, ABBA order`);
    const r = await interleave<(typeof targets)[number]>(targets, rounds, seconds, (target, s, round) =>
      holdLoad(rounds > 1 ? `${target} ${round + 1}/${rounds}` : target, servers[target], c, s, target === 'boxoffice + room' ? roomSpecs : specs), compact);
    http.push({ service: r.boxoffice, bare: r['bare route'], room: withRoom ? (r as Record<'boxoffice + room', LoadResult>)['boxoffice + room'] : null });
  }
  const serviceLogs = service.logs;
  // pgbench needs the connections the two idle pools keep: the HTTP phase is over.
  await bareServer.stop();
  await service.stop();

  // The claim as the service sends it, with every argument computed in SQL: seats
  // from \set numbers, a fresh hold id, a bench buyer found by e-mail. In extended
  // mode every :variable is a query parameter, as in the service's pg calls.
  const userExpr = pgbenchUsers === 'client' ? '\\set u :client_id + 1' : '\\set u random(1, :users)';
  const script = (prefix: string) => [
    '\\set r random(0, 9)',
    '\\set n random(1, 19)',
    '\\set n2 :n + 1',
    userExpr,
    `select * from claim_seats(:show, '${prefix}' || md5(random()::text), ` +
      `(select id from users where lower(email) = 'buyer-' || :u || '@bench.example'), ` +
      'array[chr(65 + :r) || :n, chr(65 + :r) || :n2]);',
    '',
  ].join('\n');
  if (buyerEmail(1) !== 'buyer-1@bench.example') throw new Error('the pgbench script must find the bench buyers by e-mail');

  const pgb: { result: PgbenchResult; held: number; budgetNote: string }[] = [];
  for (const c of levels) {
    const budget = await connectionBudget();
    const clients = Math.max(1, Math.min(c, pgbenchMax, budget.free - 10, buyers.length));
    const budgetNote = `min(C=${c}, ${pgbenchMax}, ${budget.free} free of max_connections ${budget.max} minus 10 spare)`;
    note(`\nC=${c}: pgbench with ${clients} clients = ${budgetNote}`);
    const prefix = `hold_pgb${c}_`;
    await compact();
    const result = await runPgbench({
      label: `c${c}`, databaseUrl: db.url, clients, threads: 2, seconds, warmupSeconds, script: script(prefix),
      defines: { show: show.showId, users: String(c) }, workDir,
      cpuMeters: [dbCpu, { name: 'machine', read: machineBusySeconds }],
    });
    const [row] = await adminQuery<{ n: number }>(
      'select count(*)::int as n from holds where id like $1 and created_at between to_timestamp($2) and to_timestamp($3)',
      [`${prefix}%`, result.window.from, result.window.to], db.url,
    );
    pgb.push({ result, held: row!.n, budgetNote });
  }

  // The report.
  say('');
  say(`== bench:holds — POST /v1/shows/{id}/holds, 2 random adjacent seats of one ${ROWS * SEATS_PER_ROW}-seat show, hold_ttl_seconds 1, closed loop`);
  say(`   ${seconds} s measured per target and C${rounds > 1 ? ` (${rounds} slices of ${fixed(seconds / rounds, 1)} s, ABBA order with the bare route)` : ''}, each slice after ${warmupSeconds} s warm-up; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; load generator, service and PostgreSQL share them`);
  say(`   load average ${fixed(loadStart, 1)} at start, ${fixed(os.loadavg()[0]!, 1)} at end (other work on this machine shows up here)`);
  say(`   pool ${poolSize} connections for the service and the bare route; pgbench -M extended -j 2, buyer per ${pgbenchUsers === 'client' ? 'pgbench client' : 'call at random'}`);
  say(`   autovacuum is ${autovacuum!.on} on this server: show_seats and holds are compacted (VACUUM FULL / VACUUM) before every slice and pgbench run`);
  const rows: string[][] = [];
  const verdicts: string[] = [];
  levels.forEach((c, i) => {
    const { service: s, bare: b, room } = http[i]!;
    const p = pgb[i]!;
    const pct = (r: LoadResult) => fixed((100 * r.counts[0]!) / Math.max(1, r.decided), 1);
    const lat = (l: { p50: number; p90: number; p99: number; max: number }) => [fixed(l.p50, 2), fixed(l.p90, 2), fixed(l.p99, 2), fixed(l.max, 1)];
    rows.push([String(c), 'boxoffice', String(c), fixed(s.rate, 0), ...lat(s.latency), pct(s), String([...s.errors.values()].reduce((a, n) => a + n, 0)), fixed(s.rate / b.rate, 2), fixed(s.rate / p.result.tps, 2)]);
    if (room) {
      rows.push([String(c), 'boxoffice + room', String(c), fixed(room.rate, 0), ...lat(room.latency), pct(room), String([...room.errors.values()].reduce((a, n) => a + n, 0)), fixed(room.rate / b.rate, 2), fixed(room.rate / p.result.tps, 2)]);
    }
    rows.push([String(c), 'bare route', String(c), fixed(b.rate, 0), ...lat(b.latency), pct(b), String([...b.errors.values()].reduce((a, n) => a + n, 0)), '1.00', fixed(b.rate / p.result.tps, 2)]);
    rows.push([String(c), 'pgbench', String(p.result.clients), fixed(p.result.tps, 0), ...lat(p.result.latency),
      fixed((100 * p.held) / Math.max(1, p.result.transactions), 1), String(p.result.failed), '', '1.00']);
    const ratio = s.rate / b.rate;
    verdicts.push(`C=${c}: boxoffice/bare ${fixed(ratio, 2)} (goal >= ${GOAL_RATIO}: ${ratio >= GOAL_RATIO ? 'met' : 'MISSED'})` +
      (room ? `; waiting-room show/plain show ${fixed(room.rate / s.rate, 2)} (goal within 10%, >= ${GOAL_ROOM_RATIO}: ${room.rate >= GOAL_ROOM_RATIO * s.rate ? 'met' : 'MISSED'}; p99 ${fixed(room.latency.p99, 1)} vs ${fixed(s.latency.p99, 1)} ms)` : '') +
      (c === 64 ? `; boxoffice p99 ${fixed(s.latency.p99, 1)} ms (goal < ${GOAL_P99_MS} ms: ${s.latency.p99 < GOAL_P99_MS ? 'met' : 'MISSED'}; pgbench's p99 for the bare SQL: ${fixed(p.result.latency.p99, 1)} ms)` : ''));
  });
  say(table(['C', 'target', 'clients', 'decided/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'held %', 'errors', 'vs bare', 'vs pgbench'], rows));
  say('');
  for (const v of verdicts) say(v);
  say('');
  say('CPU per answer in the measured windows (server = the Node process answering; for pgbench, pgbench itself is the load generator):');
  const cpuRows: CpuRow[] = levels.flatMap((c, i) => {
    const { service: s, bare: b, room } = http[i]!;
    const p = pgb[i]!.result;
    return [
      { c, label: '', target: 'boxoffice', answers: s.answered, seconds: s.seconds, cpu: s.cpu },
      ...(room ? [{ c, label: '', target: 'boxoffice + room', answers: room.answered, seconds: room.seconds, cpu: room.cpu }] : []),
      { c, label: '', target: 'bare route', answers: b.answered, seconds: b.seconds, cpu: b.cpu },
      { c, label: '', target: 'pgbench', answers: p.transactions + p.failed, seconds: p.seconds, cpu: { ...p.cpu, server: null } },
    ];
  });
  say(cpuTable(cpuRows, 'node'));
  say('');
  say('notes: decided = 201 held or 409 SEAT_UNAVAILABLE; anything else is an error, listed below and not counted.');
  if (withRoom) say(`       boxoffice + room = the same race on a second ${ROWS * SEATS_PER_ROW}-seat show with waiting_room: true; each connection sends its buyer's Admission-Token, got through POST …/queue and …/queue/admit`);
  say('       pgbench latency is one database call (no HTTP); its clients are capped because max_connections is shared:');
  for (const [i, c] of levels.entries()) {
    const p = pgb[i]!;
    say(`       C=${c}: ${p.result.clients} clients = ${p.budgetNote}; pgbench's own figure for its whole run ${p.result.reportedTps ?? '-'} tps`);
  }
  say('       held % of pgbench = holds it created in the window (holds.created_at) / its transactions in the window.');
  for (const { service: s, bare: b, room } of http) {
    for (const r of room ? [s, b, room] : [s, b]) {
      const e = reportErrors(r);
      if (e) say(e);
    }
  }
  if (serviceLogs.count) {
    say(`the service printed ${serviceLogs.count} lines after it was ready (LOG_LEVEL=warn); the last ones:`);
    for (const l of serviceLogs.last.slice(-5)) say(`  ${l.slice(0, 300)}`);
  }
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary(levels.flatMap((c, i) => {
    const { service: s, bare: b, room } = http[i]!;
    return [
      { bench: 'holds', figure: `decided/s at C=${c}`, value: s.rate, unit: 'req/s', baseline: b.rate, baseline_label: 'bare route', goal: `ratio >= ${GOAL_RATIO}`, met: s.rate / b.rate >= GOAL_RATIO },
      { bench: 'holds', figure: `p99 at C=${c}`, value: s.latency.p99, unit: 'ms', baseline: b.latency.p99, baseline_label: 'bare route p99', ...(c === 64 ? { goal: `< ${GOAL_P99_MS} ms`, met: s.latency.p99 < GOAL_P99_MS } : {}) },
      ...(room ? [{ bench: 'holds', figure: `waiting-room show decided/s at C=${c}`, value: room.rate, unit: 'req/s', baseline: s.rate, baseline_label: 'plain show', goal: `ratio >= ${GOAL_ROOM_RATIO}`, met: room.rate >= GOAL_ROOM_RATIO * s.rate }] : []),
    ];
  }));
});

/** Every buyer joins the room's queue and asks to be admitted until it is (honouring Retry-After). */
async function admitAll(baseUrl: string, showId: string, buyers: Buyer[]): Promise<string[]> {
  note(`joining the waiting room's queue with ${buyers.length} buyers and waiting for their admissions…`);
  const started = performance.now();
  const tokens: string[] = [];
  for (let i = 0; i < buyers.length; i += 32) {
    tokens.push(...await Promise.all(buyers.slice(i, i + 32).map(async (b) => {
      const j = await call(baseUrl, 'POST', `/v1/shows/${showId}/queue`, { token: b.token });
      if (j.status !== 201) throw new Error(`queue join: ${j.status} ${j.text.slice(0, 300)}`);
      for (;;) {
        const a = await call(baseUrl, 'POST', `/v1/shows/${showId}/queue/admit`, { token: b.token, body: { queue_token: j.body.queue_token } });
        if (a.status === 200) return a.body.admission_token as string;
        if (a.status !== 403 || a.body?.code !== 'NOT_YET_ADMITTED') throw new Error(`admit: ${a.status} ${a.text.slice(0, 300)}`);
        await new Promise((r) => setTimeout(r, 1000 * Number(a.headers['retry-after'] ?? 1)));
      }
    })));
  }
  note(`  ${tokens.length} admissions in ${fixed((performance.now() - started) / 1000, 1)} s`);
  return tokens;
}
