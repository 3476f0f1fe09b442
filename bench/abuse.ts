// Benchmark: does an attacker slow a normal buyer down? (issue 6, done-when 2.)
// Normal buyers sign in and hold a seat (then release it); we time sign-in + hold,
// first on an idle service, then while an attacker on another address hammers
// sign-in for one account and sign-up with new emails. The rate limits run with
// their defaults and nobody is exempt except the set-up client; each normal buyer
// speaks from a loopback address of its own (127.0.1.k), the attacker from
// 127.0.0.1. Goal: the buyer's p99 under attack within 2× of idle.
//
//   [REDIS_URL=redis://127.0.0.1:6379] npm run bench:abuse     BENCH_BUYERS=100 BENCH_ROUNDS=4 BENCH_CONCURRENCY=4 BENCH_ATTACKERS=32 BENCH_ATTACK_RATE=400 (requests/s; 0: as fast as possible)
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { runBenchmark } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { createBenchDatabase } from './lib/db.js';
import { startService } from './lib/child.js';
import { adminToken, closeApiClient, createShow } from './lib/api.js';
import { Latencies, envNumber, fixed, table, type Percentiles } from './lib/stats.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const SETUP_ADDRESS = '127.0.0.9';
const PASSWORD = 'bench-password-1';

interface Answer { status: number; body: any } // eslint-disable-line @typescript-eslint/no-explicit-any

const agents: Agent[] = [];
function agentFrom(localAddress: string, connections = 4): Agent {
  const a = new Agent({ connections, pipelining: 1, localAddress });
  agents.push(a);
  return a;
}

async function post(agent: Agent, url: string, body: unknown, token?: string, method: 'POST' | 'DELETE' = 'POST'): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agent });
  const text = await res.body.text();
  return { status: res.statusCode, body: text && String(res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined };
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

runBenchmark(async () => {
  const buyersN = envNumber('BENCH_BUYERS', 100);
  const rounds = envNumber('BENCH_ROUNDS', 4);
  const concurrency = envNumber('BENCH_CONCURRENCY', 4);
  const attackers = envNumber('BENCH_ATTACKERS', 32);
  const attackRate = process.env.BENCH_ATTACK_RATE === '0' ? 0 : envNumber('BENCH_ATTACK_RATE', 400);
  const db = await createBenchDatabase();
  // With REDIS_URL in the environment the limits run through Redis, under keys of this run only.
  const prefix = `bo_bench:${randomBytes(6).toString('hex')}`;
  const service = await startService({ databaseUrl: db.url, env: { RATE_LIMIT_EXEMPT: SETUP_ADDRESS, RATE_LIMIT_PREFIX: prefix, DB_POOL_SIZE: '20' } });
  note(`rate limits ${process.env.REDIS_URL ? `through Redis at ${process.env.REDIS_URL}` : 'in process'}`);
  const base = service.baseUrl;
  note(`service on ${base}`);
  const show = await createShow(base, await adminToken(base), { rows: 10, seatsPerRow: 20, per_user_limit: 10 });
  const seats = show.rows.flatMap((r) => Array.from({ length: show.seatsPerRow }, (_, k) => `${r}${k + 1}`));

  // Set-up from the exempt address: the normal buyers and the attacked account.
  const setup = agentFrom(SETUP_ADDRESS, 16);
  const register = async (email: string) => {
    const r = await post(setup, `${base}/v1/users`, { email, password: PASSWORD });
    if (r.status !== 201) throw new Error(`register ${email}: ${r.status}`);
  };
  if (buyersN > 250) throw new Error('BENCH_BUYERS: at most 250 (one address 127.0.1.k each)');
  const buyers = Array.from({ length: buyersN }, (_, i) => ({ email: `normal-${i}@bench.example`, agent: agentFrom(`127.0.1.${i + 1}`), seat: seats[i % seats.length]! }));
  for (let i = 0; i < buyers.length; i += 16) await Promise.all(buyers.slice(i, i + 16).map((b) => register(b.email)));
  await register('victim@bench.example');
  note(`${buyersN} normal buyers on addresses 127.0.1.1-${buyersN}; each round: sign in, hold one seat, release it`);

  /** Every buyer `rounds` times, `concurrency` buyers at a time; sign-in + hold latencies. */
  async function normalBuying(label: string): Promise<{ p: Percentiles; failures: Map<number, number> }> {
    const lat = new Latencies();
    const failures = new Map<number, number>();
    const fail = (s: number) => failures.set(s, (failures.get(s) ?? 0) + 1);
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < buyers.length; i = next++) {
        const b = buyers[i]!;
        for (let r = 0; r < rounds; r++) {
          const t0 = performance.now();
          const session = await post(b.agent, `${base}/v1/sessions`, { email: b.email, password: PASSWORD });
          if (session.status !== 200) { fail(session.status); continue; }
          const hold = await post(b.agent, `${base}/v1/shows/${show.showId}/holds`, { seats: [b.seat] }, session.body.token);
          lat.add(performance.now() - t0);
          if (hold.status !== 201) { fail(hold.status); continue; }
          const released = await post(b.agent, `${base}/v1/holds/${hold.body.hold_id}`, undefined, session.body.token, 'DELETE');
          if (released.status !== 204) fail(released.status);
        }
      }
    }));
    note(`  ${label}: ${lat.length} sign-in + hold rounds`);
    return { p: lat.summary(), failures };
  }

  const idle = await normalBuying('idle');

  // The attacker: wrong passwords for one account and new accounts, alternating,
  // at a fixed rate (open loop, as a script would), or as fast as its connections
  // allow with BENCH_ATTACK_RATE=0 (closed loop: on this one machine it then
  // competes with the service for the same cores).
  const attack = agentFrom('127.0.0.1', attackers);
  const attackStatus = new Map<string, number>();
  let attacking = true;
  let attempts = 0;
  let inFlight = 0;
  let dropped = 0;
  const attackStarted = performance.now();
  const attackOnce = async (n: number) => {
    const signUp = n % 2 === 0;
    inFlight++;
    try {
      const r = signUp
        ? await post(attack, `${base}/v1/users`, { email: `spam-${n}@bench.example`, password: PASSWORD })
        : await post(attack, `${base}/v1/sessions`, { email: 'victim@bench.example', password: `wrong-guess-${n}` });
      const key = `${signUp ? 'sign-up' : 'sign-in'} ${r.status}`;
      attackStatus.set(key, (attackStatus.get(key) ?? 0) + 1);
    } finally {
      inFlight--;
    }
  };
  let flood: Promise<unknown>;
  if (attackRate > 0) {
    const pending = new Set<Promise<void>>();
    flood = (async () => {
      for (let tick = 0; attacking; tick++) {
        // Requests due by now at the configured rate; beyond `attackers` in flight they are not sent.
        const due = Math.floor(((performance.now() - attackStarted) / 1000) * attackRate);
        while (attempts < due) {
          if (inFlight >= attackers) { dropped += due - attempts; attempts = due; break; }
          const p = attackOnce(attempts++).finally(() => pending.delete(p));
          pending.add(p);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      await Promise.all(pending);
    })();
  } else {
    flood = Promise.all(Array.from({ length: attackers }, async () => {
      while (attacking) await attackOnce(attempts++);
    }));
  }
  // The attacker's budgets allow a few slow requests (the first sign-ins and
  // sign-ups run the password hash); measure once they are spent, in the state
  // the limits hold for the rest of the attack, and say how long that took.
  const spent = () => (attackStatus.get('sign-in 429') ?? 0) > 0 && (attackStatus.get('sign-up 429') ?? 0) > 0;
  while (!spent()) await new Promise((r) => setTimeout(r, 50));
  const warmUp = (performance.now() - attackStarted) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  note(`  the attacker's budgets were spent ${fixed(warmUp, 1)} s into the attack; measuring from 1 s later`);
  const underAttack = await normalBuying('under attack');
  attacking = false;
  await flood;
  const attackSeconds = (performance.now() - attackStarted) / 1000;

  await closeApiClient();
  await Promise.all(agents.map((a) => a.close()));
  await service.stop();
  await db.drop();
  if (process.env.REDIS_URL) await deleteKeys(process.env.REDIS_URL, prefix);

  const row = (label: string, x: { p: Percentiles; failures: Map<number, number> }) =>
    [label, String(x.p.count), fixed(x.p.p50, 1), fixed(x.p.p90, 1), fixed(x.p.p99, 1), fixed(x.p.max, 1), JSON.stringify(Object.fromEntries(x.failures))];
  say(table(['normal buyer: sign-in + hold', 'rounds', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'non-2xx'], [row('idle', idle), row('under attack', underAttack)]));
  say(`under attack / idle: p50 ${fixed(underAttack.p.p50 / idle.p.p50, 2)}x, p99 ${fixed(underAttack.p.p99 / idle.p.p99, 2)}x (goal: p99 within 2x)`);
  const sorted = [...attackStatus.entries()].sort(([a], [b]) => a.localeCompare(b));
  say(`the attacker's budgets (sign-in, sign-up) were spent ${fixed(warmUp, 1)} s into the attack; the second run started 1 s later`);
  say(`attacker (127.0.0.1, ${attackRate ? `${attackRate}/s` : 'closed loop'}, up to ${attackers} in flight${dropped ? `, ${dropped} not sent` : ''}): ${attempts - dropped} requests in ${fixed(attackSeconds, 1)} s (${fixed((attempts - dropped) / attackSeconds, 0)}/s): ${sorted.map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary([
    { bench: 'abuse', figure: 'buyer sign-in + hold p99 under attack', value: underAttack.p.p99, unit: 'ms', baseline: idle.p.p99, baseline_label: 'idle p99', goal: 'ratio <= 2', met: underAttack.p.p99 <= 2 * idle.p.p99 },
    { bench: 'abuse', figure: 'buyer sign-in + hold p50 under attack', value: underAttack.p.p50, unit: 'ms', baseline: idle.p.p50, baseline_label: 'idle p50' },
  ]);
});
