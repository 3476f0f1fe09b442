// The service stays up under what an anonymous client can throw at it (issue "stays
// up"): thousands of seat-map streams that never read, opened from many addresses,
// a flood of oversized hall layouts, and — in the second test — its database going
// silent behind a proxy that accepts connections and drops every packet. Meanwhile
// buyers hold and pay for seats of another show. The built service runs as a child
// process (its event loop is not the test's); the payment simulator runs here.
//
// Asserted: every buyer request is answered (a 503 with Retry-After is an answer;
// no connection error, no 500, no timeout), /healthz answers under 100 ms at p99,
// with the database silent every request is answered within 2 s, the service sells
// normally within 5 s of the database answering again, and nothing is lost: every
// paid booking is confirmed and the books of the database and the simulator agree.
//
// Knobs: STAYS_UP_STREAMS (5000), STAYS_UP_ADDRESSES (100), STAYS_UP_BUYERS (120).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { createTestDatabase, endPool, type TestDatabase } from '../support/database.js';
import { HttpClient } from '../support/http.js';
import { createShow } from '../support/catalog.js';
import type { TestService } from '../support/service.js';
import { start as startBlackholeProxy, type BlackholeProxy } from '../support/blackholeProxy.js';
import type { Simulator } from '@boxoffice/paysim';
import { payThroughBank, startBank } from './bank.js';
import { ChildService, ensureBuild, freePort } from './childService.js';
import {
  BuyerHttp, bookUntilDefinitive, checkInvariants, envInt, holdFreshSeats, newRecord, percentile, SeatAllocator, sleep, stripeClient,
  waitSettled, type BookingRecord,
} from './support.js';

const STREAMS = envInt('STAYS_UP_STREAMS', 5000);
const ADDRESSES = envInt('STAYS_UP_ADDRESSES', 100);
const BUYERS = envInt('STAYS_UP_BUYERS', 120);
const ADMIN = { email: 'admin@stays-up.test', password: 'admin-password-1' };
const say = (s: string) => process.stdout.write(`[stays-up] ${s}\n`);

/** A client address on the loopback network: Linux answers all of 127.0.0.0/8 on lo. */
const address = (i: number) => `127.0.${10 + Math.floor(i / 250)}.${1 + (i % 250)}`;

/** 150 rows of 100,000 seats in 6 KB: the body that blocked the event loop for 35 s. */
const HUGE_LAYOUT = { rows: Array.from({ length: 150 }, (_, i) => ({ row: `R${i}`, seats: 100_000, tier: 'standard' })) };

interface Idle {
  sockets: Socket[];
  /** First status line each stream got ("HTTP/1.1 200 OK", "HTTP/1.1 503 …"), counted. */
  statuses: Record<string, number>;
  errors: Record<string, number>;
  close(): void;
}

/**
 * Opens `n` seat-map streams spread over `addresses` client addresses and never
 * reads them beyond their first bytes (the status line), as the attack did.
 */
async function openIdleStreams(port: number, showId: string, n: number, addresses: number, firstAddress = 0): Promise<Idle> {
  const idle: Idle = { sockets: [], statuses: {}, errors: {}, close: () => idle.sockets.forEach((s) => s.destroy()) };
  const openOne = (i: number) => new Promise<void>((resolve) => {
    const s = connect({ host: '127.0.0.1', port, localAddress: address(firstAddress + (i % addresses)) });
    idle.sockets.push(s);
    let settled = false;
    const done = () => { if (!settled) { settled = true; resolve(); } };
    s.setTimeout(10_000, () => { idle.errors.timeout = (idle.errors.timeout ?? 0) + 1; done(); });
    s.once('error', (err: NodeJS.ErrnoException) => { idle.errors[err.code ?? 'error'] = (idle.errors[err.code ?? 'error'] ?? 0) + 1; done(); });
    s.once('data', (chunk: Buffer) => {
      const line = chunk.toString('latin1').split('\r\n', 1)[0]!.split(' ').slice(0, 2).join(' ');
      idle.statuses[line] = (idle.statuses[line] ?? 0) + 1;
      // Never read again: the kernel's buffers fill and the service's unsent bytes grow.
      s.pause();
      s.setTimeout(0);
      done();
    });
    s.write(`GET /v1/shows/${showId}/seats/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  });
  // 50 at a time: as fast as the service answers them, a few thousand a second.
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => openOne(i + k)));
  return idle;
}

/**
 * Polls /healthz every 50 ms from a process of its own (./healthProbe.mjs) until
 * stopped; each latency in ms (a failure counts as Infinity).
 */
function watchHealth(baseUrl: string): { stop(): Promise<number[]>; slowest(n: number, since: number): string } {
  let probes: { latencies: (number | null)[]; sentAt: number[] } = { latencies: [], sentAt: [] };
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'healthProbe.mjs'), baseUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.stdin.end();
      await exited;
      probes = JSON.parse(out) as typeof probes;
      return probes.latencies.map((ms) => ms ?? Infinity);
    },
    /** The n slowest probes, each with when it was sent (ms after `since`). */
    slowest(n: number, since: number) {
      return probes.latencies.map((ms, i) => ({ ms: ms ?? Infinity, at: probes.sentAt[i]! - since }))
        .sort((a, b) => b.ms - a.ms).slice(0, n).map((p) => `${p.ms.toFixed(0)} ms at +${p.at} ms`).join(', ');
    },
  };
}

/**
 * Posts the oversized layout from `workers` clients, each at most every 20 ms (a
 * flood of 200 a second from four, paced so that it measures what one costs, not
 * how many a saturated service can take), until stopped; the statuses and the
 * slowest answer.
 */
function floodLayouts(baseUrl: string, adminToken: string, venueId: string, workers: number): { stop(): Promise<{ statuses: Record<string, number>; slowestMs: number }> } {
  const statuses: Record<string, number> = {};
  let slowestMs = 0;
  let running = true;
  const body = JSON.stringify({ venue_id: venueId, name: 'Flood', layout: HUGE_LAYOUT });
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await request(`${baseUrl}/v1/admin/halls`, {
          method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` }, headersTimeout: 10_000,
        });
        await r.body.text();
        statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
      } catch (err) {
        statuses[(err as { code?: string }).code ?? 'error'] = (statuses[(err as { code?: string }).code ?? 'error'] ?? 0) + 1;
      }
      const ms = performance.now() - t0;
      slowestMs = Math.max(slowestMs, ms);
      await sleep(Math.max(0, 20 - ms));
    }
  });
  return { async stop() { running = false; await Promise.all(loops); return { statuses, slowestMs }; } };
}

describe('stays up: idle streams, layout floods and a silent database', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let sim: Simulator;
  let simPort: number;
  let proxy: BlackholeProxy;
  let service: ChildService;
  let adminToken: string;
  let venueId: string;
  let viewedShow: string;
  const buyShows: { showId: string; seats: string[] }[] = [];
  let buyerTokens: string[] = [];

  beforeAll(async () => {
    const mainJs = ensureBuild(say);
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
    const port = await freePort();
    ({ sim, port: simPort } = await startBank(port, { retryMaxMs: 2000, attemptTimeoutMs: 3000 }));
    // Every connection of the service to PostgreSQL goes through the proxy.
    proxy = await startBlackholeProxy(Number(new URL(db.url).port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    service = new ChildService(mainJs, port, {
      DATABASE_URL: viaProxy.toString(),
      DB_POOL_SIZE: '10',
      BOXOFFICE_DEMO: '0',
      BOXOFFICE_SYNTHETIC_BUYERS: '1',
      BOXOFFICE_ADMIN_EMAIL: ADMIN.email,
      BOXOFFICE_ADMIN_PASSWORD: ADMIN.password,
      ...payThroughBank(simPort),
      LOG_LEVEL: 'warn',
      // The buyers and the admin on 127.0.0.1 are exempt from 429s; the stream addresses are not.
      RATE_LIMIT_EXEMPT: '127.0.0.1',
    }, path.join(tmpdir(), `boxoffice-stays-up-${process.pid}.log`));
    await service.start();

    const http = new HttpClient(service.baseUrl);
    const session = await http.post('/v1/sessions', ADMIN);
    if (session.status !== 200) throw new Error(`admin sign-in failed: ${session.status} ${session.text}`);
    adminToken = session.body.token as string;
    const t = { http, adminToken } as unknown as TestService;
    const viewed = await createShow(t, { rows: 10, seatsPerRow: 20 });
    viewedShow = viewed.showId;
    venueId = viewed.venueId;
    for (let i = 0; i < 2; i++) {
      const s = await createShow(t, { rows: 26, seatsPerRow: 40, per_user_limit: 20 });
      buyShows.push({ showId: s.showId, seats: s.seats });
    }
    const made = await http.post('/v1/admin/synthetic-buyers', { count: 2 * BUYERS, label: 'stays-up' }, adminToken);
    if (made.status !== 201) throw new Error(`synthetic buyers: ${made.status} ${made.text}`);
    buyerTokens = (made.body.buyers as { token: string }[]).map((b) => b.token);
  }, 300_000);

  afterAll(async () => {
    await service?.stop().catch(() => {});
    await proxy?.close().catch(() => {});
    await sim?.close().catch(() => {});
    if (pool) await endPool(pool).catch(() => {});
    await db?.drop().catch(() => {});
  });

  /** Buyers hold 1–2 fresh seats and pay, each from its own token; every answer counted. */
  async function runBuyers(tokens: string[], seats: SeatAllocator, http: BuyerHttp, spreadMs: number, budgetMs: number) {
    const records: BookingRecord[] = [];
    const failures: string[] = [];
    await Promise.all(tokens.map(async (token, i) => {
      await sleep(Math.floor((i * spreadMs) / tokens.length));
      const deadline = Date.now() + budgetMs;
      try {
        const hold = await holdFreshSeats({ http, token, deadline, seats, count: 1 + (i % 2) });
        if (!hold) return void failures.push(`buyer ${i}: no hold within the budget`);
        const rec = newRecord({ flow: i, buyer: i, holdId: hold.holdId, seats: hold.seats, paymentMethod: 'pm_card_visa', key: `stays-up-${i}-${Date.now()}` });
        records.push(rec);
        await bookUntilDefinitive({ http, token, deadline, postTimeoutMs: 5000, onError: (e) => failures.push(`buyer ${i}: ${e}`) }, rec);
        if (rec.final !== 'confirmed') failures.push(`buyer ${i}: ${rec.final}`);
      } catch (err) {
        failures.push(`buyer ${i}: ${(err as Error).message}`);
      }
    }));
    return { records, failures };
  }

  async function settledBooks(records: BookingRecord[]) {
    const settle = await waitSettled(pool, 60_000, async () => {
      const s = sim.ctx.webhooks.stats();
      return s.waiting === 0 && s.in_flight === 0;
    }, say);
    const report = await checkInvariants(pool, stripeClient(simPort), records);
    return { settle, report };
  }

  it('answers every buyer and /healthz under 100 ms at p99 while 5,000 idle streams and a layout flood hit it', async () => {
    const started = Date.now();
    const health = watchHealth(service.baseUrl);
    const flood = floodLayouts(service.baseUrl, adminToken, venueId, 4);
    const http = new BuyerHttp(service.baseUrl, 5_000, 128);
    const buying = runBuyers(buyerTokens.slice(0, BUYERS), new SeatAllocator(buyShows), http, 20_000, 40_000);
    const idle = await openIdleStreams(service.port, viewedShow, STREAMS, ADDRESSES);
    const streamsOpenAt = Date.now() - started;
    say(`${STREAMS} streams from ${ADDRESSES} addresses opened in ${streamsOpenAt} ms: ${JSON.stringify(idle.statuses)} errors ${JSON.stringify(idle.errors)}`);
    // One address past its cap: the extra streams are refused with 503, not held.
    const greedy = await openIdleStreams(service.port, viewedShow, 80, 1, ADDRESSES);
    const { records, failures } = await buying;
    const floodResult = await flood.stop();
    const latencies = await health.stop();
    const p99 = percentile(latencies, 99);
    say(`buyers: ${records.length} bookings, ${failures.length} failures; 5xx ${JSON.stringify(http.serverErrors)}; no answer ${JSON.stringify(http.connectionErrors)}`);
    say(`layout flood: ${JSON.stringify(floodResult.statuses)}, slowest ${floodResult.slowestMs.toFixed(0)} ms`);
    say(`/healthz: ${latencies.length} probes, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; slowest: ${health.slowest(5, started)}`);
    say(`greedy address: ${JSON.stringify(greedy.statuses)}`);
    const stillOpen = idle.sockets.filter((s) => !s.destroyed).length;
    idle.close();
    greedy.close();
    const { settle, report } = await settledBooks(records);
    say(`settled in ${settle.ms} ms; ${JSON.stringify(report.counts)}`);

    expect(failures).toEqual([]);
    expect(http.connectionErrors).toEqual({});
    expect(Object.keys(http.serverErrors).filter((k) => !k.startsWith('503'))).toEqual([]);
    expect(records.length).toBe(BUYERS);
    expect(records.every((r) => r.final === 'confirmed')).toBe(true);
    expect(p99).toBeLessThan(100);
    // Every stream was answered; within the per-address caps they were served.
    expect(idle.errors).toEqual({});
    expect(idle.statuses['HTTP/1.1 200']).toBe(STREAMS);
    expect(stillOpen).toBeGreaterThan(0);
    // One address past its cap (64 by default): the rest refused with 503, not held.
    expect(greedy.statuses).toEqual({ 'HTTP/1.1 200': 64, 'HTTP/1.1 503': 16 });
    // The flood is refused in milliseconds (400), or shed as overload (503); never a 500, never stored.
    expect(floodResult.statuses['400']).toBeGreaterThan(0);
    expect(Object.keys(floodResult.statuses).filter((s) => s !== '400' && s !== '503')).toEqual([]);
    expect(floodResult.slowestMs).toBeLessThan(2000);
    expect(settle.settled).toBe(true);
    expect(report.violations).toEqual([]);
    expect(service.unexpectedExits).toEqual([]);
    expect(service.logErrors().count).toBe(0);
  }, 180_000);

  it('answers within 2 s while PostgreSQL drops every packet for 10 s, and sells again within 5 s of it coming back', async () => {
    const tokens = buyerTokens.slice(BUYERS);
    const seats = new SeatAllocator(buyShows.map((s) => ({ ...s, seats: s.seats.slice(Math.ceil(s.seats.length / 2)) })));
    const health = watchHealth(service.baseUrl);
    const idle = await openIdleStreams(service.port, viewedShow, Math.min(STREAMS, 1000), ADDRESSES);
    // Every request a buyer or a viewer makes, timed: with the database silent each must answer within 2 s.
    const slow: string[] = [];
    const answered: Record<string, number> = {};
    let slowestMs = 0;
    const probe = async (what: string, run: () => Promise<number>) => {
      const t0 = performance.now();
      let status: string;
      try {
        status = String(await run());
      } catch (err) {
        status = (err as { code?: string }).code ?? 'error';
      }
      const ms = performance.now() - t0;
      slowestMs = Math.max(slowestMs, ms);
      answered[`${what} ${status}`] = (answered[`${what} ${status}`] ?? 0) + 1;
      if (ms > 2000 || !/^\d+$/.test(status)) slow.push(`${what}: ${status} after ${ms.toFixed(0)} ms`);
      return status;
    };
    const get = async (p: string, token?: string) => {
      const r = await request(`${service.baseUrl}${p}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, headersTimeout: 4000, bodyTimeout: 4000 });
      await r.body.text();
      return r.statusCode;
    };
    const post = async (p: string, body: unknown, token?: string) => {
      const r = await request(`${service.baseUrl}${p}`, {
        method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        headersTimeout: 4000, bodyTimeout: 4000,
      });
      await r.body.text();
      return r.statusCode;
    };

    // Probes of each kind from four clients at once, every 100 ms each, for the whole window:
    // 20 requests in flight against a pool of 10 connections.
    let probing = true;
    const probes = Promise.all(Array.from({ length: 4 }, async (_, client) => {
      let i = client * 1000;
      while (probing) {
        const token = tokens[i++ % tokens.length]!;
        const show = buyShows[i % buyShows.length]!;
        await Promise.all([
          probe('readyz', () => get('/readyz')),
          probe('map', () => get(`/v1/shows/${show.showId}/seats`)),
          probe('show', () => get(`/v1/shows/${show.showId}`)),
          probe('hold', () => post(`/v1/shows/${show.showId}/holds`, { seats: [show.seats[i % show.seats.length]!] }, token)),
          probe('sign-in', () => post('/v1/sessions', { email: ADMIN.email, password: 'wrong-password-1' })),
          // A new viewer of the live map: its answer's head (200 and the stream, or 503) is what counts.
          probe('stream', async () => {
            const r = await request(`${service.baseUrl}/v1/shows/${viewedShow}/seats/stream`, { headersTimeout: 4000 });
            r.body.destroy();
            return r.statusCode;
          }),
        ]);
        await sleep(100);
      }
    }));

    await sleep(3000);
    const silentAt = Date.now();
    await proxy.mode('blackhole');
    say('PostgreSQL silent (packets dropped)');
    await sleep(10_000);
    await proxy.mode('pass');
    const backAt = Date.now();
    say(`PostgreSQL answering again after ${backAt - silentAt} ms`);
    // The service sells normally again: a hold and a booking of fresh seats succeed, within 5 s.
    let recoveredMs = Infinity;
    const recoveryHttp = new BuyerHttp(service.baseUrl, 2_000, 16);
    while (Date.now() - backAt < 10_000) {
      const want = seats.take(1);
      try {
        const r = await recoveryHttp.send('POST', `/v1/shows/${want.showId}/holds`, { body: { seats: want.seats }, token: tokens[0]! });
        if (r.status === 201) { recoveredMs = Date.now() - backAt; break; }
      } catch {
        // no answer yet
      }
      await sleep(100);
    }
    say(`sold again ${recoveredMs} ms after the database came back`);
    probing = false;
    await probes;
    // Then buyers hold and pay as usual.
    const http = new BuyerHttp(service.baseUrl, 5_000, 64);
    const { records, failures } = await runBuyers(tokens.slice(1, 41), seats, http, 2_000, 30_000);
    const latencies = await health.stop();
    idle.close();
    const { settle, report } = await settledBooks(records);
    say(`answers during the window: ${JSON.stringify(answered)}`);
    say(`slow or unanswered: ${slow.length} ${JSON.stringify(slow.slice(0, 10))}; slowest answer ${slowestMs.toFixed(0)} ms`);
    say(`/healthz p99 ${percentile(latencies, 99).toFixed(1)} ms; buyers after: ${records.length}, failures ${failures.length}; settled ${settle.settled} in ${settle.ms} ms`);

    expect(slow).toEqual([]);
    expect(Object.keys(answered).filter((k) => / 5\d\d$/.test(k) && !k.endsWith(' 503'))).toEqual([]);
    // The silence was seen: some requests were refused with 503 while it lasted.
    expect(Object.keys(answered).some((k) => k.endsWith(' 503'))).toBe(true);
    expect(recoveredMs).toBeLessThan(5000);
    expect(failures).toEqual([]);
    expect(settle.settled).toBe(true);
    expect(report.violations).toEqual([]);
    expect(service.unexpectedExits).toEqual([]);
  }, 180_000);
});
