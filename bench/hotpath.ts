// Benchmark: the hold path and the seat map against their raw baselines, in one run,
// on one fresh database (issue #26). Every figure is a ratio to a bare node:http
// server (no Fastify; bench/lib/bareHttp.ts) measured in the same run, ABBA-interleaved:
//   holds    — 2 random adjacent seats of one 200-seat show whose holds last 1 s, at 64
//              and 256 connections. Ours: POST /v1/shows/{id}/holds with the live map
//              on (the service's seat feed runs as always) and BENCH_VIEWERS SSE viewers
//              on the show's stream for the whole run. Bare: one conditional UPDATE
//              (available or expired → held for 1 s) through a pg Pool of the same size.
//   seat map — GET /v1/shows/{id}/seats of that show (plain, and br as a browser asks)
//              vs bare node:http sending the bytes recorded from ours with the same
//              headers (all but those Node writes itself: date, connection, length).
//
//   npm run bench:hotpath   BENCH_SECONDS=10 BENCH_WARMUP_SECONDS=2 BENCH_ROUNDS=2
//   BENCH_CONNECTIONS=64,256 (holds)   BENCH_MAP_CONNECTIONS=64   BENCH_CODINGS=identity,br (empty: no map rows)
//   BENCH_VIEWERS=200        BENCH_POOL_SIZE=20 (service and bare)
//   BENCH_CPU_PROF=1         profile the service into .bench-out/prof
//   BENCH_PURCHASE_QUEUE_WAIT_MS  the service's PURCHASE_QUEUE_WAIT_MS (0: the holds' limit without
//                            the pool's queue, as before issue #26), unset: its default
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { runBenchmark, onCleanup } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { backendCpuMeter, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT, machineBusySeconds, profileFlags, startBareHttp, startService, type Child } from './lib/child.js';
import { adminToken, call, closeApiClient, createShow, registerBuyers, replayedHeaders } from './lib/api.js';
import { adjacentPairs, compactSeats, holdLoad, holdSpecs, shed } from './lib/holdRace.js';
import { interleave, reportErrors, runLoad, type LoadResult, type RequestSpec } from './lib/load.js';
import { cpuTable, type CpuRow } from './lib/report.js';
import { openCrowd } from './lib/viewerCrowd.js';
import { envList, envNumber, fixed, table } from './lib/stats.js';

const ROWS = 10;
const SEATS_PER_ROW = 20;
const GOAL_HOLDS = 0.9;
const GOAL_MAP = 1.0;
const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const load1 = () => fixed(os.loadavg()[0]!, 1);

runBenchmark(async () => {
  const seconds = envNumber('BENCH_SECONDS', 10);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const levels = envList('BENCH_CONNECTIONS', [64, 256]);
  const mapLevels = envList('BENCH_MAP_CONNECTIONS', [64]);
  const viewers = envNumber('BENCH_VIEWERS', 200, { zero: true });
  const poolSize = envNumber('BENCH_POOL_SIZE', 20);
  const codings = (process.env.BENCH_CODINGS ?? 'identity,br').split(',').map((c) => c.trim()).filter((c) => c !== '');
  for (const c of codings) if (!['identity', 'gzip', 'br'].includes(c)) throw new Error(`BENCH_CODINGS: unknown coding ${c}`);
  const loadStart = os.loadavg();

  const db = await createBenchDatabase();
  note(`database ${db.name}`);
  const dbCpu = backendCpuMeter(db.name);
  const queueWait = process.env.BENCH_PURCHASE_QUEUE_WAIT_MS;
  const service = await startService({
    databaseUrl: db.url, env: { DB_POOL_SIZE: String(poolSize), ...(queueWait ? { PURCHASE_QUEUE_WAIT_MS: queueWait } : {}) }, nodeFlags: profileFlags('boxoffice-hotpath') });
  note(`service pid ${service.pid} on ${service.baseUrl}`);
  const token = await adminToken(service.baseUrl);
  const show = await createShow(service.baseUrl, token, { rows: ROWS, seatsPerRow: SEATS_PER_ROW, hold_ttl_seconds: 1, per_user_limit: 1000 });
  const buyerCount = Math.max(...levels);
  note(`registering ${buyerCount} buyers (scrypt, 16 at a time)…`);
  const buyers = await registerBuyers(service.baseUrl, buyerCount, (n) => { if (n % 64 === 0 || n === buyerCount) note(`  ${n}/${buyerCount} buyers`); });

  // The seat map's bytes as ours sends them, for the bare server to replay (no holds yet: the map stays as recorded).
  const mapPath = `/v1/shows/${show.showId}/seats`;
  const workDir = path.join(REPO_ROOT, '.bench-out', `hotpath-${db.name}`);
  mkdirSync(workDir, { recursive: true });
  onCleanup('remove the recorded answers', () => rmSync(workDir, { recursive: true, force: true }));
  const manifest: { url: string; acceptEncoding: string; file: string; headers: Record<string, string> }[] = [];
  const recorded = new Map<string, number>();
  for (const coding of codings) {
    const r = await call(service.baseUrl, 'GET', mapPath, { headers: coding === 'identity' ? {} : { 'accept-encoding': coding } });
    if (r.status !== 200) throw new Error(`${mapPath} (${coding}): ${r.status} ${r.text.slice(0, 300)}`);
    if ((r.headers['content-encoding'] ?? 'identity') !== coding) throw new Error(`${mapPath}: asked for ${coding}, got ${String(r.headers['content-encoding'])}`);
    const file = path.join(workDir, `map-${coding}.bin`);
    writeFileSync(file, r.raw);
    const headers = replayedHeaders(r);
    manifest.push({ url: mapPath, acceptEncoding: coding === 'identity' ? '' : coding, file, headers });
    recorded.set(coding, r.raw.length);
  }
  const manifestFile = path.join(workDir, 'manifest.json');
  writeFileSync(manifestFile, JSON.stringify(manifest));

  const bareClaim = await startBareHttp('claim', { BARE_DATABASE_URL: db.url, BARE_POOL_SIZE: String(poolSize) }, profileFlags('bare-http-claim'));
  const bareStatic = await startBareHttp('static', { BARE_MANIFEST: manifestFile }, profileFlags('bare-http-static'));

  // The live map's viewers, connected for every slice (ours and the bare server's alike: their thread costs the machine the same).
  const crowd = viewers > 0 ? await openCrowd('viewers', service.baseUrl, `${mapPath}/stream`, viewers, 50, 1) : null;
  if (crowd && crowd.opened.withSnapshot < viewers) note(`warning: only ${crowd.opened.withSnapshot}/${viewers} viewers got their snapshot`);

  const bodies = adjacentPairs(show.rows, SEATS_PER_ROW);
  const specs = holdSpecs(show.showId, buyers);
  const servers = { boxoffice: service, 'bare node:http': bareClaim };
  const holds: { c: number; ours: LoadResult; bare: LoadResult; refusedAll: number; fromMemory: number }[] = [];
  for (const c of levels) {
    note(`\nC=${c}: holds, boxoffice (live map on, ${viewers} viewers) and bare node:http (one UPDATE), pool ${poolSize}, ${rounds} round(s) each, ABBA order; load ${load1()}`);
    // The 503s of the whole slice, warm-up included (the service's own count): a limit that sheds only while it settles still sheds.
    let refusedAll = 0;
    // Holds answered 409 from what the service knows is taken, without the database (warm-ups included).
    let fromMemory = 0;
    const r = await interleave(['boxoffice', 'bare node:http'] as const, rounds, seconds, async (target, s, round) => {
      const before = target === 'boxoffice' ? await holdLimit(service.baseUrl) : null;
      const result = await holdLoad({ label: `${target}${rounds > 1 ? ` ${round + 1}/${rounds}` : ''}`, server: servers[target], connections: c, seconds: s, warmupSeconds, specs, bodies, dbCpu });
      if (before) {
        const after = await holdLimit(service.baseUrl);
        refusedAll += after.refused - before.refused;
        fromMemory += after.fromMemory - before.fromMemory;
      }
      return result;
    }, () => compactSeats(db.url));
    holds.push({ c, ours: r.boxoffice, bare: r['bare node:http'], refusedAll, fromMemory });
  }

  const mapLoad = (label: string, server: Child, connections: number, spec: RequestSpec, s: number) => runLoad({
    label, origin: server.baseUrl, connections, seconds: s, warmupSeconds,
    cpuMeters: [{ name: 'server', read: () => server.cpuSeconds() }, dbCpu, { name: 'machine', read: machineBusySeconds }],
    outcomes: ['200'],
    next: () => spec,
    wantBody: (status) => status !== 200,
    classify: (status) => (status === 200 ? 0 : -1),
  });
  const maps: { c: number; coding: string; ours: LoadResult; bare: LoadResult }[] = [];
  const mapServers = { boxoffice: service, 'bare node:http': bareStatic };
  for (const c of mapLevels) {
    for (const coding of codings) {
      const spec: RequestSpec = { method: 'GET', path: mapPath, body: null, headers: ['accept', 'application/json', ...(coding === 'identity' ? [] : ['accept-encoding', coding])] };
      note(`\nC=${c}: seat map (${coding}), boxoffice and bare node:http (same bytes), ${rounds} round(s) each, ABBA order; load ${load1()}`);
      const r = await interleave(['boxoffice', 'bare node:http'] as const, rounds, seconds, (target, s, round) =>
        mapLoad(`${target} map ${coding}${rounds > 1 ? ` ${round + 1}/${rounds}` : ''}`, mapServers[target], c, spec, s));
      maps.push({ c, coding, ours: r.boxoffice, bare: r['bare node:http'] });
    }
  }
  const seen = crowd ? await crowd.collect() : null;
  await crowd?.close();
  const end = await holdLimit(service.baseUrl);
  await closeApiClient();
  const limitLine = `limit ${end.limit}, in flight ${end.inFlight}, refused in all ${end.refused}`;
  const loadEnd = os.loadavg();

  say('');
  say(`== bench:hotpath — holds and the seat map vs bare node:http, one run, one database; closed loop, ABBA order`);
  say(`   ${seconds} s measured per target and row${rounds > 1 ? ` (${rounds} slices of ${fixed(seconds / rounds, 1)} s)` : ''}, each slice after ${warmupSeconds} s warm-up; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; load generator, viewers, servers and PostgreSQL share them`);
  say(`   load average (1, 5, 15 min) ${loadStart.map((x) => fixed(x, 1)).join(', ')} at start, ${loadEnd.map((x) => fixed(x, 1)).join(', ')} at end`);
  say(`   service: PURCHASE_QUEUE_WAIT_MS ${queueWait ?? 'default'}`);
  say(`   holds: 2 random adjacent seats of one ${ROWS * SEATS_PER_ROW}-seat show, hold_ttl_seconds 1; pool ${poolSize} for both; show_seats compacted before every slice`);
  say(`   live map: ${viewers} SSE viewers on the show's stream through every slice${seen ? `; they got their snapshot ${seen.snapshot.filter((v) => v >= 0).length}/${viewers}, deltas received ${sumOf(seen.received)}, gaps ${sumOf(seen.gaps)}, streams ended early ${sumOf(seen.ended)}` : ''}`);
  const lat = (l: LoadResult) => [fixed(l.latency.p50, 2), fixed(l.latency.p99, 2), fixed(l.latency.max, 1)];
  const errs = (l: LoadResult) => String([...l.errors.values()].reduce((a, n) => a + n, 0));
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const h of holds) {
    const ratio = h.ours.rate / h.bare.rate;
    rows.push([String(h.c), 'holds', 'boxoffice', fixed(h.ours.rate, 0), ...lat(h.ours), `${shed(h.ours)} (${h.refusedAll})`, errs(h.ours), fixed(ratio, 2)]);
    rows.push([String(h.c), 'holds', 'bare node:http', fixed(h.bare.rate, 0), ...lat(h.bare), String(shed(h.bare)), errs(h.bare), '1.00']);
    const ok = ratio >= GOAL_HOLDS && h.refusedAll === 0;
    verdicts.push(`C=${h.c} holds: ${fixed(ratio, 2)}× bare, ${shed(h.ours)} answered 503 in the measured windows, ${h.refusedAll} in its slices with their warm-ups (goal >= ${GOAL_HOLDS}× and no 503: ${ok ? 'met' : 'MISSED'}); ` +
      `held/409 ours ${h.ours.counts[0]}/${h.ours.counts[1]}, bare ${h.bare.counts[0]}/${h.bare.counts[1]}; ${h.fromMemory} of ours' 409s (warm-ups included) from seats known taken, without the database`);
  }
  for (const m of maps) {
    const ratio = m.ours.rate / m.bare.rate;
    rows.push([String(m.c), `map ${m.coding} ${recorded.get(m.coding)} B`, 'boxoffice', fixed(m.ours.rate, 0), ...lat(m.ours), String(shed(m.ours)), errs(m.ours), fixed(ratio, 2)]);
    rows.push([String(m.c), `map ${m.coding} ${recorded.get(m.coding)} B`, 'bare node:http', fixed(m.bare.rate, 0), ...lat(m.bare), String(shed(m.bare)), errs(m.bare), '1.00']);
    verdicts.push(`C=${m.c} seat map ${m.coding}: ${fixed(ratio, 2)}× bare (goal >= ${GOAL_MAP}: ${ratio >= GOAL_MAP ? 'met' : 'MISSED'})`);
  }
  say(table(['C', 'what', 'target', 'decided/s', 'p50 ms', 'p99 ms', 'max ms', '503s (with warm-up)', 'errors', 'vs bare'], rows));
  say('');
  for (const v of verdicts) say(v);
  say(`the holds' purchase limit at the end (from /metrics): ${limitLine}`);
  say('');
  say('CPU per answer in the measured windows:');
  const cpuRows: CpuRow[] = [
    ...holds.flatMap((h) => [
      { c: h.c, label: 'holds', target: 'boxoffice', answers: h.ours.answered, seconds: h.ours.seconds, cpu: h.ours.cpu },
      { c: h.c, label: 'holds', target: 'bare node:http', answers: h.bare.answered, seconds: h.bare.seconds, cpu: h.bare.cpu },
    ]),
    ...maps.flatMap((m) => [
      { c: m.c, label: `map ${m.coding}`, target: 'boxoffice', answers: m.ours.answered, seconds: m.ours.seconds, cpu: m.ours.cpu },
      { c: m.c, label: `map ${m.coding}`, target: 'bare node:http', answers: m.bare.answered, seconds: m.bare.seconds, cpu: m.bare.cpu },
    ]),
  ];
  say(cpuTable(cpuRows, 'node'));
  say('notes: decided = 201 held or 409 SEAT_UNAVAILABLE (holds), 200 (map); anything else is an error, listed below and not counted.');
  for (const r of [...holds, ...maps]) for (const l of [r.ours, r.bare]) { const e = reportErrors(l); if (e) say(e); }
  if (service.logs.count) {
    say(`the service printed ${service.logs.count} lines after it was ready (LOG_LEVEL=warn); the last ones:`);
    for (const l of service.logs.last.slice(-5)) say(`  ${l.slice(0, 300)}`);
  }
  writeSummary([
    ...holds.flatMap((h) => [
      { bench: 'hotpath', figure: `holds decided/s at C=${h.c}, live map on`, value: h.ours.rate, unit: 'req/s', baseline: h.bare.rate, baseline_label: 'bare node:http, one UPDATE', goal: `ratio >= ${GOAL_HOLDS}`, met: h.ours.rate / h.bare.rate >= GOAL_HOLDS },
      { bench: 'hotpath', figure: `holds answered 503 at C=${h.c} (warm-ups too)`, value: h.refusedAll, unit: '', baseline: shed(h.bare), baseline_label: 'bare node:http', goal: '0', met: h.refusedAll === 0 },
    ]),
    ...maps.map((m) => ({ bench: 'hotpath', figure: `seat map ${m.coding} req/s at C=${m.c}`, value: m.ours.rate, unit: 'req/s', baseline: m.bare.rate, baseline_label: 'bare node:http, same bytes', goal: `ratio >= ${GOAL_MAP}`, met: m.ours.rate / m.bare.rate >= GOAL_MAP })),
  ]);
  await bareClaim.stop();
  await bareStatic.stop();
  await service.stop();
});

function sumOf(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s;
}

/** The holds' limit, in flight and refusals so far, and holds refused from seats known taken, as the service's /metrics say. */
async function holdLimit(baseUrl: string): Promise<{ limit: number; inFlight: number; refused: number; fromMemory: number }> {
  const r = await call(baseUrl, 'GET', '/metrics');
  const pick = (name: string) => Number(new RegExp(`^${name}\\{path="hold"\\} (\\S+)$`, 'm').exec(r.text)?.[1] ?? NaN);
  const fromMemory = Number(/^boxoffice_holds_refused_known_taken_total (\S+)$/m.exec(r.text)?.[1] ?? 0);
  return { limit: pick('boxoffice_purchase_limit'), inFlight: pick('boxoffice_purchase_in_flight'), refused: pick('boxoffice_purchase_rejections_total'), fromMemory };
}
