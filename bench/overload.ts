// Benchmark: an on-sale rush against a slowed seat database (issue 8, done-when 4).
// PostgreSQL sits behind a TCP proxy that delays every packet BENCH_DB_DELAY_MS
// each way. Virtual buyers (one event loop, undici keep-alive, 3 s timeout per
// request, Retry-After honoured on 503/429) each buy 1–2 seats of one show and pay
// with pm_card_visa. Three configurations, one after the other, each with a fresh
// service process on a database of its own (so none settles what the one before
// left in flight):
//   (a) unloaded: BENCH_UNLOADED_BUYERS buyers, closed loop (buy, buy again) for
//       BENCH_UNLOADED_SECONDS, no waiting room: the goodput baseline;
//   (b) BENCH_BUYERS buyers arriving at random within BENCH_ARRIVAL_SECONDS, no
//       waiting room, the purchase-path concurrency limit off (fixed at 1,000,000);
//   (c) the same crowd at a waiting-room show, the limit on (its defaults);
//   (a') (a) again: the goodput baseline is the mean of (a) and (a').
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
//   BENCH_PROBE_EVERY_MS=20        beside (c), a hold to a bare server that refuses every
//                                  one at once (bench/lib/refusalProbe.ts), this often: the
//                                  raw baseline of the 503s (0: none)
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { runBenchmark } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { ADMIN_URL, adminQuery, createBenchDatabase, type BenchDatabase } from './lib/db.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { freePort, profileFlags, startBare, startDelayProxy, startService, type Child } from './lib/child.js';
import { RefusalProbe } from './lib/refusalProbe.js';
import { adminToken, call, closeApiClient, createShow } from './lib/api.js';
import { envNumber, fixed, table, type Percentiles } from './lib/stats.js';
import { listenOverflows } from './lib/netstat.js';
import { metricLines, totalTrips, tripsBetween, tripsFrom, type OriginTrips, type TripSnapshot } from './lib/dbTrips.js';
import { webhookPathsBetween, webhookPathsFrom, type WebhookPaths } from './lib/webhookPaths.js';
import { BuyerClient, SeatPool, newTally, purchase, waitForAdmission, type BuyerAccount, type Market, type Tally } from './lib/virtualBuyers.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sum = (mp: Map<string, number>) => [...mp.values()].reduce((x, y) => x + y, 0);

/** What a run left for the next one's service to finish: unsettled payments, open bookings, undone side effects. */
async function leftovers(url: string): Promise<string> {
  const [r] = await adminQuery<{ attempts: number; pending: number; outbox: number; active_holds: number }>(
    `select (select count(*)::int from payment_attempts where status in ('created', 'unknown')) as attempts,
            (select count(*)::int from bookings where status = 'pending') as pending,
            (select count(*)::int from outbox where done_at is null) as outbox,
            (select count(*)::int from holds where status in ('active', 'paying')) as active_holds`, [], url);
  return `${r!.attempts} payment attempts unsettled, ${r!.pending} bookings pending, ${r!.outbox} outbox tasks undone, ${r!.active_holds} holds active or paying`;
}

/** From the service's /metrics: the purchase limits and in-flight counts, and its event loop's longest stall since the last scrape. */
async function serviceFigures(baseUrl: string): Promise<{ limits: string; lagMs: string }> {
  const text = await metricsText(baseUrl);
  const figure = (name: string, path?: string) => {
    const m = new RegExp(`^${name}${path ? `\\{path="${path}"\\}` : ''} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  const of = (path: string) => `${figure('boxoffice_purchase_limit', path)}/${figure('boxoffice_purchase_in_flight', path)}`;
  return { limits: `${of('hold')}, ${of('booking')}`, lagMs: fixed(1000 * figure('boxoffice_nodejs_eventloop_lag_max_seconds'), 0) };
}

/** The service's /metrics as text; empty when it does not answer (sampled while the service may be struggling). */
const metricsText = (baseUrl: string) => metricLines(baseUrl).then((lines) => lines.join('\n'), () => '');

/** At a window's edge, from one read of /metrics: the database round trips by origin and the webhook events by path. */
async function windowCounts(baseUrl: string): Promise<{ trips: TripSnapshot; webhooks: WebhookPaths }> {
  const lines = await metricLines(baseUrl);
  return { trips: tripsFrom(lines), webhooks: webhookPathsFrom(lines) };
}

/** What happened between two edges of a window. */
async function countsSince(baseUrl: string, before: { trips: TripSnapshot; webhooks: WebhookPaths }) {
  const after = await windowCounts(baseUrl);
  return { trips: tripsBetween(before.trips, after.trips), webhooks: webhookPathsBetween(before.webhooks, after.webhooks) };
}

/** The service's own timing of its 503s (boxoffice_purchase_shed_seconds): how many, and how many within 5 ms. */
function shedInService(text: string): { count: number; within5ms: number } {
  const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  return { count: n(/^boxoffice_purchase_shed_seconds_count (\S+)$/m), within5ms: n(/^boxoffice_purchase_shed_seconds_bucket\{le="0\.005"\} (\S+)$/m) };
}

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
  /** Connections the kernel dropped from a full listen queue during the run (the whole machine; null: not readable). */
  listenDrops: number | null;
  /** What the service sent to PostgreSQL from the window's start to its end, by origin (its /metrics). */
  trips: TripSnapshot;
  /** The provider's webhook events the service took over the same window, by path. */
  webhooks: WebhookPaths;
}

/** The kernel's listen-queue drops from `before` to now. */
const dropsSince = (before: number | null): number | null => {
  const now = listenOverflows();
  return before === null || now === null ? null : now - before;
};

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
  // The buyers' own event loop: a stall here delays their answers and timers (their timeouts too).
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const timer = setInterval(() => {
    const lagMax = lag.max / 1e6;
    m.tally.buyerLagMaxMs = Math.max(m.tally.buyerLagMaxMs, lagMax);
    lag.reset();
    const t = m.tally;
    const timeouts = [...t.timeouts.values()].reduce((a, b) => a + b, 0);
    note(`  [${label}] ${fixed((performance.now() - started) / 1000, 0).padStart(3)} s: ${String(t.purchases).padStart(5)} purchases (+${t.purchases - last}), ` +
      `${timeouts} timeouts, ${t.shed.length} 503s, ${m.seats.size} seats not known taken${extra()}, buyers' loop lag max ${fixed(lagMax, 0)} ms`);
    last = t.purchases;
  }, 1000);
  return () => { clearInterval(timer); lag.disable(); };
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
  const probeEveryMs = envNumber('BENCH_PROBE_EVERY_MS', 20, { zero: true });
  if (rows > 26) throw new Error('BENCH_ROWS: at most 26 (rows A-Z)');
  const loadStart = os.loadavg()[0]!;

  const pgAt = new URL(ADMIN_URL);
  const proxy = await startDelayProxy({ host: pgAt.hostname, port: Number(pgAt.port || 5432) }, delayMs);
  note(`the services reach PostgreSQL through a proxy adding ${delayMs} ms a packet each way (port ${proxy.port})`);

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

  /**
   * One run's world: its own database (so no run inherits what the one before left
   * unfinished: a crowd without a room leaves thousands of payments in flight, which
   * the next service's reconciler would settle while the next crowd arrives), a
   * fresh service on it, one show and the buyer accounts.
   */
  interface Stage { db: BenchDatabase; service: Child; admin: string; showId: string; accounts: BuyerAccount[] }
  const stage = async (label: string, env: Record<string, string>, waitingRoom: boolean, n: number): Promise<Stage> => {
    const db = await createBenchDatabase();
    const slowUrl = new URL(db.url);
    slowUrl.hostname = '127.0.0.1';
    slowUrl.port = String(proxy.port);
    const paysimPort = await freePort();
    const service = await startService({ databaseUrl: slowUrl.toString(), env: { ...baseEnv, PAYSIM_PORT: String(paysimPort), ...env }, nodeFlags: profileFlags(`overload-${label}`) });
    // The bundled payment simulator starts after the service listens: wait for it too.
    while (!(await fetch(`http://127.0.0.1:${paysimPort}/`).then(() => true, () => false))) await sleep(100);
    const admin = await adminToken(service.baseUrl);
    const show = await createShow(service.baseUrl, admin, { rows, seatsPerRow, per_user_limit: 1000, waiting_room: waitingRoom });
    const accounts = await syntheticBuyers(service.baseUrl, admin, n);
    note(`service pid ${service.pid} on ${service.baseUrl}, database ${db.name}: a show of ${rows * seatsPerRow} seats, ${accounts.length} buyer accounts`);
    return { db, service, admin, showId: show.showId, accounts };
  };
  const allSeats = Array.from({ length: rows }, (_, i) => String.fromCharCode(65 + i)).flatMap((r) => Array.from({ length: seatsPerRow }, (_, k) => `${r}${k + 1}`));

  // One client (one set of keep-alive connections) per run: a run does not inherit the sockets another one left broken.
  let client = new BuyerClient(Math.max(buyersN, unloadedN));
  const market = (st: Stage, waitingRoom: boolean, stopAt: number): Market =>
    ({ origin: st.service.baseUrl, showId: st.showId, waitingRoom, seats: new SeatPool(allSeats), tally: newTally(), stopAt, timeoutMs });

  // (a) Unloaded: a closed loop of a few buyers, goodput over a fixed window. Run
  // again after (c) as (a'): the baseline is the mean of the two, so a machine that
  // got slower or faster meanwhile (other work on the same cores) moves both sides.
  const unloaded = async (label: string): Promise<RunResult> => {
    note(`\n${label} unloaded: ${unloadedN} buyers, closed loop, ${unloadedSeconds} s`);
    const st = await stage(label, limitOff, false, unloadedN);
    const dropsBefore = listenOverflows();
    const countsBefore = await windowCounts(st.service.baseUrl);
    const started = performance.now();
    const m = market(st, false, started + unloadedSeconds * 1000);
    const stop = progress(label, started, m, () => '');
    await Promise.all(st.accounts.map(async (buyer) => {
      while (performance.now() < m.stopAt) {
        const r = await purchase(client, m, buyer, null);
        if (r === 'sold_out' || r === 'refused') { if (r === 'refused') m.tally.gaveUp++; break; }
      }
    }));
    stop();
    const { trips, webhooks } = await countsSince(st.service.baseUrl, countsBefore);
    await st.service.stop();
    await st.db.drop();
    return {
      label: `${label} unloaded`, buyers: unloadedN, tally: m.tally, span: unloadedSeconds,
      purchasesInSpan: m.tally.purchaseTimes.filter((t) => t <= m.stopAt).length, unfinished: 0, soldOut: m.seats.size === 0,
      notes: [], timeline: [], listenDrops: dropsSince(dropsBefore), trips, webhooks,
    };
  };
  const a = await unloaded('(a)');

  // (b) and (c): the crowd arrives at random within the arrival window.
  const crowd = async (label: string, st: Stage, waitingRoom: boolean, capSeconds: number): Promise<RunResult> => {
    const dropsBefore = listenOverflows();
    const countsBefore = await windowCounts(st.service.baseUrl);
    const started = performance.now();
    const m = market(st, waitingRoom, started + capSeconds * 1000);
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
        const v = await call(st.service.baseUrl, 'GET', `/v1/admin/shows/${st.showId}/queue`, { token: st.admin }).catch(() => null);
        if (!v || v.status !== 200) continue;
        const ctl = v.body.controller ?? {};
        // /metrics takes the service a few ms to write: every 5 s only, so the bench's watching does not stall what it measures.
        const mx = timeline.length % 5 === 4 ? await serviceFigures(st.service.baseUrl) : { limits: '', lagMs: '' };
        timeline.push([fixed((performance.now() - started) / 1000, 0), String(v.body.serving), String(m.tally.admitted), String(m.tally.purchases), String(m.tally.shed.length),
          String(sum(m.tally.timeouts)), String(v.body.admit_rate_per_minute), ctl.pool_utilization == null ? '-' : `${fixed(100 * ctl.pool_utilization, 0)}%`,
          mx.limits, mx.lagMs, `${ctl.decision ?? '-'}: ${ctl.reason ?? '-'}`]);
      }
    })();
    await Promise.all(st.accounts.map(async (b) => {
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
    const { trips, webhooks } = await countsSince(st.service.baseUrl, countsBefore);
    const last = m.tally.purchaseTimes.length ? Math.max(...m.tally.purchaseTimes) : started + 1;
    return {
      label, buyers: buyersN, tally: m.tally, span: (last - started) / 1000, purchasesInSpan: m.tally.purchases, unfinished, soldOut: soldOut || m.seats.size === 0,
      notes: [], timeline, listenDrops: dropsSince(dropsBefore), trips, webhooks,
    };
  };

  note(`\n(b) ${buyersN} buyers within ${arrivalSeconds} s, no waiting room, purchase-path limit off`);
  const stB = await stage('b', limitOff, false, buyersN);
  const b = await crowd('b', stB, false, bMaxSeconds);
  await client.close();
  await stB.service.stop();
  // What (c) would have inherited had it run on the same database.
  const afterB = await leftovers(stB.db.url);
  note(`(b) left: ${afterB}`);
  await stB.db.drop();
  client = new BuyerClient(buyersN);

  const ceiling = process.env.BENCH_ADMIT_CEILING_PER_MINUTE ? envNumber('BENCH_ADMIT_CEILING_PER_MINUTE', 1) : Math.max(60, Math.round(1.5 * (a.purchasesInSpan / a.span) * 60));
  note(`\n(c) ${buyersN} buyers within ${arrivalSeconds} s, waiting room (admission ceiling ${ceiling}/min), purchase-path limit on`);
  const stC = await stage('c', { WAITING_ROOM_ADMIT_PER_MINUTE: String(ceiling) }, true, buyersN);
  // The raw baseline of a 503, in the same seconds: a server that refuses every hold at once.
  const bareRefusing = probeEveryMs > 0 ? await startBare('refuse', {}) : null;
  const probe = bareRefusing ? new RefusalProbe(bareRefusing.baseUrl, probeEveryMs, stC.accounts[0]!.token) : null;
  const c = await crowd('c', stC, true, maxSeconds);
  await probe?.stop();
  await bareRefusing?.stop();
  const view = await call(stC.service.baseUrl, 'GET', `/v1/admin/shows/${stC.showId}/queue`, { token: stC.admin });
  const shedC = shedInService(await metricsText(stC.service.baseUrl));
  // Before it stops: what it says while shutting down (webhooks refused) is not the run's.
  const serviceLogs = { count: stC.service.logs.count, last: [...stC.service.logs.last] };
  // The buyers' connections go first: a service waiting for them to close would be killed before it writes its profile.
  await client.close();
  await stC.service.stop();
  client = new BuyerClient(unloadedN);
  const a2 = await unloaded("(a')");
  await client.close();
  await closeApiClient();
  await proxy.stop();

  // The report.
  const runs = [a, b, c, a2];
  const pct = (l: { summary(): Percentiles; length: number }) => l.summary();
  const goodput = (r: RunResult) => r.purchasesInSpan / r.span;
  const goodputA = (goodput(a) + goodput(a2)) / 2;
  const within1s = (r: RunResult) => pct(r.tally.all).p99 <= 1000;
  // The bare refusals sent within a second of one of (c)'s 503s: the same moments.
  const bareAll = probe ? pct(probe.all()) : null;
  const bareNear = probe ? pct(probe.near(c.tally.shedAt, 1000)) : null;
  // The summary's baseline for the 503s: the bare refusals of the same moments, else of the whole run.
  const bare503 = bareNear?.count ? { baseline: bareNear.p99, baseline_label: "bare 503 server, within 1 s of (c)'s 503s" }
    : bareAll?.count ? { baseline: bareAll.p99, baseline_label: 'bare 503 server during (c)' } : { baseline: null, baseline_label: '-' };
  const trio = (p: Percentiles) => `${fixed(p.p50, 1)} / ${fixed(p.p90, 1)} / ${fixed(p.p99, 1)}`;
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
  say(table(['', '(a) unloaded', '(b) crowd, no room, no limit', '(c) crowd, room + limit', "(a') unloaded, after (c)"], [
    line('buyers', (r) => (r === a || r === a2 ? `${r.buyers} (closed loop)` : `${r.buyers} in ${arrivalSeconds} s`)),
    line('purchases completed', (r) => String(r.tally.purchases)),
    line('seats sold', (r) => String(r.tally.seatsBought)),
    line('goodput window s', (r) => fixed(r.span, 1)),
    line('goodput purchases/s', (r) => fixed(goodput(r), 1)),
    line("goodput vs mean of (a), (a')", (r) => fixed(goodput(r) / goodputA, 2)),
    line('timeouts (no answer in 3 s)', (r) => `${sum(r.tally.timeouts)}${r.tally.timeouts.size ? ` (${[...r.tally.timeouts].map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`),
    line('purchase path answers', (r) => String(r.tally.purchasePath.length)),
    line('purchase path p50 ms', (r) => fixed(pct(r.tally.purchasePath).p50, 1)),
    line('purchase path p99 ms', (r) => fixed(pct(r.tally.purchasePath).p99, 1)),
    line('  not 503: p50 / p99 ms', (r) => `${fixed(pct(r.tally.decided).p50, 1)} / ${fixed(pct(r.tally.decided).p99, 1)}`),
    line('503 OVERLOADED', (r) => String(r.tally.shed.length)),
    line('503 p99 ms', (r) => fixed(pct(r.tally.shed).p99, 2)),
    line('  503 p50 / p90 / max ms', (r) => (r.tally.shed.length ? `${fixed(pct(r.tally.shed).p50, 1)} / ${fixed(pct(r.tally.shed).p90, 1)} / ${fixed(pct(r.tally.shed).max, 1)}` : '-')),
    line('  503s within 5 ms in the service', (r) => (r === c && shedC.count > 0 ? `${shedC.within5ms} of ${shedC.count}` : '-')),
    line('bare 503 beside it: p50 / p90 / p99 ms', (r) => (r === c && bareAll?.count ? `${trio(bareAll)} (${bareAll.count})` : '-')),
    line('  within 1 s of its 503s', (r) => (r === c && bareNear?.count ? `${trio(bareNear)} (${bareNear.count})` : '-')),
    line('seat races lost (409)', (r) => String(r.tally.seatRacesLost)),
    line('queue: admitted / not yet', (r) => (r === c ? `${r.tally.admitted} / ${r.tally.notYet}` : '-')),
    ...['queue join', 'admit', 'hold', 'booking'].map((kind) => line(`  ${kind}: p50 / p99 ms`, (r) => {
      const l = r.tally.byKind.get(kind);
      return l && l.length ? `${fixed(pct(l).p50, 1)} / ${fixed(pct(l).p99, 1)}` : '-';
    })),
    line('every answer p99 ms', (r) => fixed(pct(r.tally.all).p99, 1)),
    line('every answer within 1 s at p99', (r) => (within1s(r) ? 'yes' : 'no')),
    line('buyers unfinished at the cap', (r) => String(r.unfinished)),
    line("buyers' own event loop, max lag ms", (r) => fixed(r.tally.buyerLagMaxMs, 0)),
    line('connections dropped, listen queue full', (r) => (r.listenDrops === null ? '-' : String(r.listenDrops))),
    line('sold out', (r) => (r.soldOut ? 'yes' : 'no')),
  ]));
  say('');
  // Where each run's database time went, per purchase: what a purchase costs the pool in each
  // configuration (round trips, and seconds from asking for a statement to its answer, pool
  // wait included), by origin, from the service's own counts over the run's window.
  const perPurchase = (r: RunResult, t: OriginTrips | undefined) =>
    (t && r.tally.purchases > 0 ? `${fixed(t.roundTrips / r.tally.purchases, 2)} / ${fixed((1000 * t.seconds) / r.tally.purchases, 1)}` : '-');
  const origins = [...new Set(runs.flatMap((r) => [...r.trips.keys()]))]
    .sort((x, y) => (c.trips.get(y)?.seconds ?? 0) - (c.trips.get(x)?.seconds ?? 0));
  say('the database per purchase, by origin (round trips / ms from asking to the answer, pool wait included; from the service\'s /metrics over each window):');
  say(table(['origin', '(a)', '(b)', '(c)', "(a')"], [
    ...origins.map((o) => [o, ...runs.map((r) => perPurchase(r, r.trips.get(o)))]),
    ['all', ...runs.map((r) => perPurchase(r, totalTrips(r.trips)))],
  ]));
  say('');
  // How the provider's events were taken: one statement (settled, duplicate) or read back from the provider.
  const paths = [...new Set(runs.flatMap((r) => [...r.webhooks.keys()]))].sort();
  say('webhook events per purchase over each window, by path (from the service\'s /metrics):');
  say(table(['path', '(a)', '(b)', '(c)', "(a')"], [
    ...paths.map((p) => [p, ...runs.map((r) => (r.tally.purchases > 0 ? fixed((r.webhooks.get(p) ?? 0) / r.tally.purchases, 2) : '-'))]),
  ]));
  say('');
  const ct = c.tally;
  const shedP99 = pct(ct.shed).p99;
  const goals: [string, boolean | null][] = [
    ['no timeouts', sum(ct.timeouts) === 0],
    ['every answer (yes or no) within 1 s at p99', within1s(c)],
    ['503 p99 under 5 ms', ct.shed.length ? shedP99 < 5 : null],
    [`at least 0.8× the goodput of an unloaded run (mean of (a) and (a'): ${fixed(goodputA, 1)}/s)`, goodput(c) >= 0.8 * goodputA],
  ];
  say('goals for (c):');
  for (const [g, ok] of goals) say(`  ${g}: ${ok === null ? 'no 503 was answered (nothing to measure)' : ok ? 'met' : 'MISSED'}`);
  if (bareAll?.count) {
    say(`  (the raw baseline: a bare server answering every hold with 503 at once, probed from the buyers' loop every ${probeEveryMs} ms during (c): ` +
      `p99 ${fixed(bareAll.p99, 1)} ms over the run${bareNear?.count ? `, ${fixed(bareNear.p99, 1)} ms within 1 s of (c)'s 503s` : ''}; ${probe!.failures} probes unanswered)`);
  }
  say('');
  say(`notes: goodput of (a) and (a') = purchases completed in its ${unloadedSeconds} s window / ${unloadedSeconds} s (closed loop of ${unloadedN}); (a') runs after (c), and their mean is the baseline;`);
  say(`       of (b) and (c) = purchases / seconds from the first arrival to the last purchase; every run is cut at ${maxSeconds} s${bMaxSeconds !== maxSeconds ? ` ((b) at ${bMaxSeconds} s)` : ''}.`);
  say('       "every answer" = every request of every route (queue join, admit, hold, booking); a timeout counts as an answer after 3 s.');
  say('       "503 p99" is as the buyers saw it; "in the service" is from the parsed request to the 503 written (boxoffice_purchase_shed_seconds):');
  say('       the difference is time the request waited for the service\'s event loop (and the buyers\' for theirs) on cores every process here shares.');
  say('       "connections dropped" is the kernel\'s ListenOverflows over the run (the whole machine): each one cost its buyer a SYN retry, a second or more.');
  const statuses = (r: RunResult) => [...r.tally.statuses].sort(([x], [y]) => x.localeCompare(y)).map(([k, v]) => `${k}: ${v}`).join(', ');
  for (const r of runs) say(`answers of ${r.label}: ${statuses(r)}`);
  say(`(b) left for (c)'s service: ${afterB}`);
  if (c.timeline.length) {
    const every = envNumber('BENCH_TIMELINE_EVERY', 5);
    say('');
    say(`the room of (c) every ${every} s (serving, rate and the pool's busy share of the controller's last window from the admin view; admitted, purchases, 503s and timeouts as the buyers saw them, cumulative):`);
    say('(limits: the purchase path\'s concurrency limit / in flight, hold and booking, and the service\'s own event-loop lag, max since the last sample, from its /metrics)');
    say(table(['s', 'serving', 'admitted', 'purchases', '503s', 'timeouts', 'rate/min', 'pool busy', 'hold, booking limit/in flight', 'service lag ms', 'controller: last decision'],
      c.timeline.filter((_, i) => (i + 1) % every === 0 || i === c.timeline.length - 1).map((r) => [...r.slice(0, 10), r[10]!.slice(0, 90)])));
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
    { bench: 'overload', figure: 'goodput of (c) room + limit', value: goodput(c), unit: 'purchases/s', baseline: goodputA, baseline_label: "mean of (a), (a') unloaded", goal: 'ratio >= 0.8', met: goodput(c) >= 0.8 * goodputA },
    { bench: 'overload', figure: 'goodput of (b) no room, no limit', value: goodput(b), unit: 'purchases/s', baseline: goodputA, baseline_label: "mean of (a), (a') unloaded" },
    { bench: 'overload', figure: 'every answer p99 of (c)', value: pct(c.tally.all).p99, unit: 'ms', baseline: pct(a.tally.all).p99, baseline_label: '(a) unloaded p99', goal: '<= 1000 ms', met: within1s(c) },
    { bench: 'overload', figure: 'timeouts of (c)', value: sum(ct.timeouts), unit: 'requests', baseline: sum(b.tally.timeouts), baseline_label: '(b) no room, no limit', goal: '0', met: sum(ct.timeouts) === 0 },
    ...(ct.shed.length ? [{ bench: 'overload', figure: '503 p99 of (c)', value: shedP99, unit: 'ms', ...bare503, goal: '< 5 ms', met: shedP99 < 5 }] : []),
  ]);
});
