// Benchmark: an on-sale rush against a slowed seat database (issue 8, done-when 4).
// PostgreSQL sits behind a TCP proxy that delays every packet BENCH_DB_DELAY_MS
// each way. Virtual buyers (one event loop, undici keep-alive, 3 s timeout per
// request, Retry-After honoured on 503/429) each buy 1–2 seats of one show and pay
// with pm_card_visa. Three configurations, one after the other, each on a fresh
// service process against the same database:
//   (a) unloaded: BENCH_UNLOADED_BUYERS buyers, closed loop (buy, buy again) for
//       BENCH_UNLOADED_SECONDS, no waiting room: the goodput baseline;
//   (b) BENCH_BUYERS buyers arriving at random within BENCH_ARRIVAL_SECONDS, no
//       waiting room, the purchase-path concurrency limit off (fixed at 1,000,000);
//   (c) the same crowd at a waiting-room show, the limit on (its defaults).
// Buyer accounts come from the service's synthetic-buyers route (the service runs
// with BOXOFFICE_SYNTHETIC_BUYERS=1): the bench measures the purchase path, not
// 5,000 sign-ups.
//
//   npm run bench:overload   BENCH_BUYERS=5000 BENCH_ARRIVAL_SECONDS=10 BENCH_DB_DELAY_MS=10
//   BENCH_UNLOADED_BUYERS=64 BENCH_UNLOADED_SECONDS=10 BENCH_MAX_SECONDS=90 (cap per loaded run)
//   BENCH_B_MAX_SECONDS (cap of (b) alone, default BENCH_MAX_SECONDS: shorter while tuning (c))
//   BENCH_ROWS=26 BENCH_SEATS_PER_ROW=300 BENCH_POOL_SIZE=20 BENCH_TIMEOUT_MS=3000
//   BENCH_ADMIT_CEILING_PER_MINUTE (default: 1.5 × the unloaded goodput)
//   BENCH_CPU_PROF=1               profile each run's service into .bench-out/prof
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { runBenchmark } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { ADMIN_URL, createBenchDatabase } from './lib/db.js';
import { freePort, profileFlags, startDelayProxy, startService, type Child } from './lib/child.js';
import { adminToken, call, closeApiClient, createShow } from './lib/api.js';
import { envNumber, fixed, table, type Percentiles } from './lib/stats.js';
import { BuyerClient, SeatPool, newTally, purchase, waitForAdmission, type BuyerAccount, type Market, type Tally } from './lib/virtualBuyers.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sum = (mp: Map<string, number>) => [...mp.values()].reduce((x, y) => x + y, 0);

interface RunResult {
  label: string;
  buyers: number;
  tally: Tally;
  /** Seconds over which goodput is counted. */
  span: number;
  purchasesInSpan: number;
  unfinished: number;
  soldOut: boolean;
  notes: string[];
  /** The room, once a second (runs with a waiting room only). */
  timeline: string[][];
}

/** Buyer accounts from the service's synthetic-buyers route (BOXOFFICE_SYNTHETIC_BUYERS=1), 10,000 a request at most. */
async function syntheticBuyers(baseUrl: string, admin: string, n: number): Promise<BuyerAccount[]> {
  const out: BuyerAccount[] = [];
  for (let start = 0; start < n; start += 10_000) {
    const r = await call(baseUrl, 'POST', '/v1/admin/synthetic-buyers', { token: admin, body: { count: Math.min(10_000, n - start), label: 'bench:overload' } });
    if (r.status !== 201) throw new Error(`synthetic buyers: ${r.status} ${JSON.stringify(r.body)}`);
    for (const b of r.body.buyers as { user_id: string; token: string }[]) out.push({ userId: b.user_id, token: b.token });
  }
  return out;
}

function progress(label: string, started: number, m: Market, extra: () => string): () => void {
  let last = 0;
  const timer = setInterval(() => {
    const t = m.tally;
    const timeouts = [...t.timeouts.values()].reduce((a, b) => a + b, 0);
    note(`  [${label}] ${fixed((performance.now() - started) / 1000, 0).padStart(3)} s: ${String(t.purchases).padStart(5)} purchases (+${t.purchases - last}), ` +
      `${timeouts} timeouts, ${t.shed.length} 503s, ${m.seats.size} seats not known taken${extra()}`);
    last = t.purchases;
  }, 1000);
  return () => clearInterval(timer);
}

runBenchmark(async () => {
  const buyersN = envNumber('BENCH_BUYERS', 5000);
  const arrivalSeconds = envNumber('BENCH_ARRIVAL_SECONDS', 10);
  const delayMs = envNumber('BENCH_DB_DELAY_MS', 10);
  const unloadedN = envNumber('BENCH_UNLOADED_BUYERS', 64);
  const unloadedSeconds = envNumber('BENCH_UNLOADED_SECONDS', 10);
  const maxSeconds = envNumber('BENCH_MAX_SECONDS', 90);
  const bMaxSeconds = envNumber('BENCH_B_MAX_SECONDS', maxSeconds);
  const rows = envNumber('BENCH_ROWS', 26);
  const seatsPerRow = envNumber('BENCH_SEATS_PER_ROW', 300);
  const poolSize = envNumber('BENCH_POOL_SIZE', 20);
  const timeoutMs = envNumber('BENCH_TIMEOUT_MS', 3000);
  if (rows > 26) throw new Error('BENCH_ROWS: at most 26 (rows A-Z)');
  const loadStart = os.loadavg()[0]!;

  const db = await createBenchDatabase();
  const pgAt = new URL(ADMIN_URL);
  const proxy = await startDelayProxy({ host: pgAt.hostname, port: Number(pgAt.port || 5432) }, delayMs);
  const slowUrl = new URL(db.url);
  slowUrl.hostname = '127.0.0.1';
  slowUrl.port = String(proxy.port);
  note(`database ${db.name}; the service reaches it through a proxy adding ${delayMs} ms a packet each way (port ${proxy.port})`);

  const secret = randomBytes(32).toString('base64url');
  const baseEnv = {
    DB_POOL_SIZE: String(poolSize),
    BOXOFFICE_TOKEN_SECRET: secret,
    BOXOFFICE_SYNTHETIC_BUYERS: '1',
    RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1',
    RATE_LIMIT_PREFIX: `bo_bench:${randomBytes(6).toString('hex')}`,
    WAITING_ROOM_PREFIX: `bo_bench_wr:${randomBytes(6).toString('hex')}`,
  };
  const limitOff = { PURCHASE_CONCURRENCY: '1000000', PURCHASE_CONCURRENCY_MIN: '1000000', PURCHASE_CONCURRENCY_MAX: '1000000' };
  const start = async (env: Record<string, string>, label: string): Promise<Child> => {
    const paysimPort = await freePort();
    const s = await startService({ databaseUrl: slowUrl.toString(), env: { ...baseEnv, PAYSIM_PORT: String(paysimPort), ...env }, nodeFlags: profileFlags(`overload-${label}`) });
    // The bundled payment simulator starts after the service listens: wait for it too.
    while (!(await fetch(`http://127.0.0.1:${paysimPort}/`).then(() => true, () => false))) await sleep(100);
    note(`service pid ${s.pid} on ${s.baseUrl}`);
    return s;
  };

  let service = await start(limitOff, 'a');
  const admin = await adminToken(service.baseUrl);
  const showOf = (waiting_room: boolean) => createShow(service.baseUrl, admin, { rows, seatsPerRow, per_user_limit: 1000, waiting_room });
  const shows = { a: await showOf(false), b: await showOf(false), c: await showOf(true) };
  const allSeats = shows.a.rows.flatMap((r) => Array.from({ length: seatsPerRow }, (_, k) => `${r}${k + 1}`));
  note(`three shows of ${allSeats.length} seats (${rows} rows × ${seatsPerRow}); writing ${buyersN} buyer accounts into the database…`);
  const accounts = await syntheticBuyers(service.baseUrl, admin, Math.max(buyersN, unloadedN));
  note(`  ${accounts.length} accounts`);

  // One client (one set of keep-alive connections) per run: a run does not inherit the sockets another one left broken.
  let client = new BuyerClient(Math.max(buyersN, unloadedN));
  const market = (showId: string, waitingRoom: boolean, stopAt: number): Market =>
    ({ origin: service.baseUrl, showId, waitingRoom, seats: new SeatPool(allSeats), tally: newTally(), stopAt, timeoutMs });

  // (a) Unloaded: a closed loop of a few buyers, goodput over a fixed window.
  note(`\n(a) unloaded: ${unloadedN} buyers, closed loop, ${unloadedSeconds} s`);
  const aStart = performance.now();
  const mA = market(shows.a.showId, false, aStart + unloadedSeconds * 1000);
  let stop = progress('a', aStart, mA, () => '');
  await Promise.all(accounts.slice(0, unloadedN).map(async (b) => {
    while (performance.now() < mA.stopAt) {
      const r = await purchase(client, mA, b, null);
      if (r === 'sold_out' || r === 'refused') { if (r === 'refused') mA.tally.gaveUp++; break; }
    }
  }));
  stop();
  const a: RunResult = {
    label: '(a) unloaded', buyers: unloadedN, tally: mA.tally, span: unloadedSeconds,
    purchasesInSpan: mA.tally.purchaseTimes.filter((t) => t <= mA.stopAt).length, unfinished: 0, soldOut: mA.seats.size === 0,
    notes: [`closed loop: each buyer buys again as soon as a purchase ends; goodput = purchases completed within the ${unloadedSeconds} s window`],
    timeline: [],
  };
  const goodputA = a.purchasesInSpan / a.span;
  await service.stop();

  // (b) and (c): the crowd arrives at random within the arrival window.
  const crowd = async (label: string, showId: string, waitingRoom: boolean, capSeconds: number): Promise<RunResult> => {
    const started = performance.now();
    const m = market(showId, waitingRoom, started + capSeconds * 1000);
    let arrived = 0;
    let done = 0;
    const stopProgress = progress(label, started, m, () => `, ${arrived} arrived, ${done} done` + (waitingRoom ? `, ${m.tally.admitted} admitted` : ''));
    let soldOut = false;
    let unfinished = 0;
    // What the room did, from its admin view, once a second: the explanation of whatever (c) shows.
    const timeline: string[][] = [];
    let sampling = waitingRoom;
    const sampler = (async () => {
      while (sampling) {
        await sleep(1000);
        const v = await call(service.baseUrl, 'GET', `/v1/admin/shows/${showId}/queue`, { token: admin }).catch(() => null);
        if (!v || v.status !== 200) continue;
        const ctl = v.body.controller ?? {};
        timeline.push([fixed((performance.now() - started) / 1000, 0), String(v.body.serving), String(m.tally.admitted), String(m.tally.purchases), String(m.tally.shed.length),
          String(sum(m.tally.timeouts)), String(v.body.admit_rate_per_minute), `${ctl.decision ?? '-'}: ${ctl.reason ?? '-'}`]);
      }
    })();
    await Promise.all(accounts.slice(0, buyersN).map(async (b) => {
      await sleep(Math.random() * arrivalSeconds * 1000);
      arrived++;
      let admission: string | null = null;
      if (waitingRoom) {
        admission = await waitForAdmission(client, m, b);
        if (!admission) { if (m.tally.soldOutSeen) soldOut = true; else unfinished++; done++; return; }
      }
      const r = await purchase(client, m, b, admission);
      if (r === 'sold_out') soldOut = true;
      if (r === 'ended') unfinished++;
      if (r === 'refused') m.tally.gaveUp++;
      done++;
    }));
    stopProgress();
    sampling = false;
    await sampler;
    const last = m.tally.purchaseTimes.length ? Math.max(...m.tally.purchaseTimes) : started + 1;
    return {
      label, buyers: buyersN, tally: m.tally, span: (last - started) / 1000, purchasesInSpan: m.tally.purchases, unfinished, soldOut: soldOut || m.seats.size === 0,
      notes: [], timeline,
    };
  };

  note(`\n(b) ${buyersN} buyers within ${arrivalSeconds} s, no waiting room, purchase-path limit off`);
  service = await start(limitOff, 'b');
  const b = await crowd('b', shows.b.showId, false, bMaxSeconds);
  await client.close();
  await service.stop();
  client = new BuyerClient(buyersN);
  // A pause between the crowds, so that nothing (b) left running overlaps (c)'s start.
  await sleep(5000);

  const ceiling = process.env.BENCH_ADMIT_CEILING_PER_MINUTE ? envNumber('BENCH_ADMIT_CEILING_PER_MINUTE', 1) : Math.max(60, Math.round(1.5 * goodputA * 60));
  note(`\n(c) ${buyersN} buyers within ${arrivalSeconds} s, waiting room (admission ceiling ${ceiling}/min), purchase-path limit on`);
  service = await start({ WAITING_ROOM_ADMIT_PER_MINUTE: String(ceiling) }, 'c');
  const c = await crowd('c', shows.c.showId, true, maxSeconds);
  const view = await call(service.baseUrl, 'GET', `/v1/admin/shows/${shows.c.showId}/queue`, { token: await adminToken(service.baseUrl) });
  // Before it stops: what it says while shutting down (webhooks refused) is not the run's.
  const serviceLogs = { count: service.logs.count, last: [...service.logs.last] };
  // The buyers' connections go first: a service waiting for them to close would be killed before it writes its profile.
  await client.close();
  await closeApiClient();
  await service.stop();
  await proxy.stop();

  // The report.
  const runs = [a, b, c];
  const pct = (l: { summary(): Percentiles; length: number }) => l.summary();
  const goodput = (r: RunResult) => r.purchasesInSpan / r.span;
  const within1s = (r: RunResult) => pct(r.tally.all).p99 <= 1000;
  const line = (name: string, f: (r: RunResult) => string) => [name, ...runs.map(f)];
  say('');
  say(`== bench:overload — an on-sale rush; PostgreSQL behind a proxy adding ${delayMs} ms a packet each way`);
  say(`   hall of ${allSeats.length} seats (${rows} rows × ${seatsPerRow}), one show per run; each buyer holds 1–2 random seats not known taken and books them (pm_card_visa, Idempotency-Key)`);
  say(`   ${timeoutMs} ms timeout per request (then the buyer retries: re-picked seats for a hold, the same key for a booking); Retry-After honoured on 503/429`);
  say(`   service: DB_POOL_SIZE ${poolSize}, loopback exempt from rate limits; (a), (b) PURCHASE_CONCURRENCY fixed at 1,000,000; (c) limit at its defaults, WAITING_ROOM_ADMIT_PER_MINUTE ${ceiling}` +
    `${process.env.BENCH_ADMIT_CEILING_PER_MINUTE ? '' : ' (1.5 × the goodput of (a))'}, queue store ${process.env.REDIS_URL ? 'Redis' : 'in process'}`);
  say(`   ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; buyers, service, proxy and PostgreSQL share them; load average ${fixed(loadStart, 1)} at start, ${fixed(os.loadavg()[0]!, 1)} at end`);
  say('   buyer accounts from POST /v1/admin/synthetic-buyers (no sign-ups: the bench measures the purchase path, not scrypt)');
  say('');
  say(table(['', '(a) unloaded', '(b) crowd, no room, no limit', '(c) crowd, room + limit'], [
    line('buyers', (r) => (r === a ? `${r.buyers} (closed loop)` : `${r.buyers} in ${arrivalSeconds} s`)),
    line('purchases completed', (r) => String(r.tally.purchases)),
    line('seats sold', (r) => String(r.tally.seatsBought)),
    line('goodput window s', (r) => fixed(r.span, 1)),
    line('goodput purchases/s', (r) => fixed(goodput(r), 1)),
    line('goodput vs (a)', (r) => fixed(goodput(r) / goodputA, 2)),
    line('timeouts (no answer in 3 s)', (r) => `${sum(r.tally.timeouts)}${r.tally.timeouts.size ? ` (${[...r.tally.timeouts].map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`),
    line('purchase path answers', (r) => String(r.tally.purchasePath.length)),
    line('purchase path p50 ms', (r) => fixed(pct(r.tally.purchasePath).p50, 1)),
    line('purchase path p99 ms', (r) => fixed(pct(r.tally.purchasePath).p99, 1)),
    line('  not 503: p50 / p99 ms', (r) => `${fixed(pct(r.tally.decided).p50, 1)} / ${fixed(pct(r.tally.decided).p99, 1)}`),
    line('503 OVERLOADED', (r) => String(r.tally.shed.length)),
    line('503 p99 ms', (r) => fixed(pct(r.tally.shed).p99, 2)),
    line('seat races lost (409)', (r) => String(r.tally.seatRacesLost)),
    line('queue: admitted / not yet', (r) => (r === c ? `${r.tally.admitted} / ${r.tally.notYet}` : '-')),
    ...['queue join', 'admit', 'hold', 'booking'].map((kind) => line(`  ${kind}: p50 / p99 ms`, (r) => {
      const l = r.tally.byKind.get(kind);
      return l && l.length ? `${fixed(pct(l).p50, 1)} / ${fixed(pct(l).p99, 1)}` : '-';
    })),
    line('every answer p99 ms', (r) => fixed(pct(r.tally.all).p99, 1)),
    line('every answer within 1 s at p99', (r) => (within1s(r) ? 'yes' : 'no')),
    line('buyers unfinished at the cap', (r) => String(r.unfinished)),
    line('sold out', (r) => (r.soldOut ? 'yes' : 'no')),
  ]));
  say('');
  const ct = c.tally;
  const shedP99 = pct(ct.shed).p99;
  const goals: [string, boolean | null][] = [
    ['no timeouts', sum(ct.timeouts) === 0],
    ['every answer (yes or no) within 1 s at p99', within1s(c)],
    ['503 p99 under 5 ms', ct.shed.length ? shedP99 < 5 : null],
    ['at least 0.8× the goodput of (a)', goodput(c) >= 0.8 * goodputA],
  ];
  say('goals for (c):');
  for (const [g, ok] of goals) say(`  ${g}: ${ok === null ? 'no 503 was answered (nothing to measure)' : ok ? 'met' : 'MISSED'}`);
  say('');
  say(`notes: goodput of (a) = purchases completed in its ${unloadedSeconds} s window / ${unloadedSeconds} s (closed loop of ${unloadedN});`);
  say(`       of (b) and (c) = purchases / seconds from the first arrival to the last purchase; every run is cut at ${maxSeconds} s${bMaxSeconds !== maxSeconds ? ` ((b) at ${bMaxSeconds} s)` : ''}.`);
  say('       "every answer" = every request of every route (queue join, admit, hold, booking); a timeout counts as an answer after 3 s.');
  const statuses = (r: RunResult) => [...r.tally.statuses].sort(([x], [y]) => x.localeCompare(y)).map(([k, v]) => `${k}: ${v}`).join(', ');
  for (const r of runs) say(`answers of ${r.label}: ${statuses(r)}`);
  if (c.timeline.length) {
    const every = envNumber('BENCH_TIMELINE_EVERY', 5);
    say('');
    say(`the room of (c) every ${every} s (serving and rate from the admin view; admitted, purchases, 503s and timeouts as the buyers saw them, cumulative):`);
    say(table(['s', 'serving', 'admitted', 'purchases', '503s', 'timeouts', 'rate/min', 'controller: last decision'],
      c.timeline.filter((_, i) => (i + 1) % every === 0 || i === c.timeline.length - 1).map((r) => [...r.slice(0, 7), r[7]!.slice(0, 90)])));
  }
  if (view.status === 200) {
    const ctl = view.body.controller ?? {};
    say(`room of (c) at the end: serving ${view.body.serving}, waiting ${view.body.waiting}, rate ${view.body.admit_rate_per_minute}/min; controller ${ctl.decision ?? '-'} (${ctl.reason ?? '-'}), ` +
      `hold latency ${fixed(Number(ctl.hold_latency_ms), 1)} ms vs calm ${fixed(Number(ctl.baseline_hold_latency_ms), 1)} ms, no-shows ${ctl.no_shows ?? '-'}`);
  }
  if (serviceLogs.count) {
    say(`the service of (c) printed ${serviceLogs.count} lines after it was ready (LOG_LEVEL=warn); the last ones:`);
    for (const l of serviceLogs.last.slice(-5)) say(`  ${l.slice(0, 300)}`);
  }
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary([
    { bench: 'overload', figure: 'goodput of (c) room + limit', value: goodput(c), unit: 'purchases/s', baseline: goodputA, baseline_label: '(a) unloaded', goal: 'ratio >= 0.8', met: goodput(c) >= 0.8 * goodputA },
    { bench: 'overload', figure: 'goodput of (b) no room, no limit', value: goodput(b), unit: 'purchases/s', baseline: goodputA, baseline_label: '(a) unloaded' },
    { bench: 'overload', figure: 'every answer p99 of (c)', value: pct(c.tally.all).p99, unit: 'ms', baseline: pct(a.tally.all).p99, baseline_label: '(a) unloaded p99', goal: '<= 1000 ms', met: within1s(c) },
    { bench: 'overload', figure: 'timeouts of (c)', value: sum(ct.timeouts), unit: 'requests', baseline: sum(b.tally.timeouts), baseline_label: '(b) no room, no limit', goal: '0', met: sum(ct.timeouts) === 0 },
    ...(ct.shed.length ? [{ bench: 'overload', figure: '503 p99 of (c)', value: shedP99, unit: 'ms', baseline: null, baseline_label: '-', goal: '< 5 ms', met: shedP99 < 5 }] : []),
  ]);
});
