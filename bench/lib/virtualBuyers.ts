// Virtual buyers for bench:overload, all in this one event loop over undici
// keep-alive connections. A buyer gives up on a request after 3 s (a timeout),
// honours Retry-After on 503 and 429, and, with a waiting room, joins the queue
// and asks to be admitted when the join's retry_after_seconds, then each answer's
// Retry-After, says so. Then it holds
// 1–2 random seats it does not know to be taken (a lost race re-picks) and books
// them with pm_card_visa under an Idempotency-Key; a retry replays the same key.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { Latencies } from './stats.js';

export interface BuyerAccount { userId: string; token: string }

export interface Tally {
  purchases: number;
  /** performance.now() of each completed purchase, for goodput. */
  purchaseTimes: number[];
  seatsBought: number;
  pending: number;
  timeouts: Map<string, number>;
  /** Every answer of every route, in ms. */
  all: Latencies;
  /** Hold and booking answers (any status). */
  purchasePath: Latencies;
  /** Hold and booking answers that were not 503. */
  decided: Latencies;
  shed: Latencies;
  /** performance.now() at which each 503 was sent, for what else happened in the same seconds. */
  shedAt: number[];
  /** Every answer by route (queue join, admit, hold, booking), in ms. */
  byKind: Map<string, Latencies>;
  statuses: Map<string, number>;
  seatRacesLost: number;
  gaveUp: number;
  soldOutSeen: number;
  admitted: number;
  notYet: number;
  /** The longest stall of the buyers' own event loop seen (ms): their answers and timeouts are late by as much. */
  buyerLagMaxMs: number;
}

export function newTally(): Tally {
  return {
    purchases: 0, purchaseTimes: [], seatsBought: 0, pending: 0, timeouts: new Map(), all: new Latencies(), purchasePath: new Latencies(),
    decided: new Latencies(), shed: new Latencies(), shedAt: [], byKind: new Map(), statuses: new Map(), seatRacesLost: 0, gaveUp: 0, soldOutSeen: 0, admitted: 0, notYet: 0, buyerLagMaxMs: 0,
  };
}

/** Seats nobody is known to have taken: an array with O(1) removal, shared by every buyer. */
export class SeatPool {
  private readonly seats: string[];
  private readonly where = new Map<string, number>();
  constructor(all: string[]) {
    this.seats = [...all];
    this.seats.forEach((s, i) => this.where.set(s, i));
  }
  get size(): number { return this.seats.length; }
  take(seat: string): void {
    const i = this.where.get(seat);
    if (i === undefined) return;
    const last = this.seats.pop()!;
    this.where.delete(seat);
    if (last !== seat) {
      this.seats[i] = last;
      this.where.set(last, i);
    }
  }
  pick(n: number): string[] {
    const out = new Set<string>();
    while (out.size < Math.min(n, this.seats.length)) out.add(this.seats[(Math.random() * this.seats.length) | 0]!);
    return [...out];
  }
}

export interface Market {
  origin: string;
  showId: string;
  waitingRoom: boolean;
  seats: SeatPool;
  tally: Tally;
  /** No request starts after this (performance.now()). */
  stopAt: number;
  timeoutMs: number;
}

type Answer = { status: number; body: any; ms: number; retryAfter: number } | null; // eslint-disable-line @typescript-eslint/no-explicit-any

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Waits as told, stretched by a random 0–20 %, but not past the end of the run.
 * 5,000 browsers keep their own clocks; these buyers share one event loop, and
 * without the spread every stall of it would line their timers up for good (all
 * that were due during a stall fire together and are due together again a
 * Retry-After later): a crowd in lockstep, which a real crowd is not.
 */
const wait = (m: Market, ms: number) => sleep(Math.max(0, Math.min(ms * (1 + 0.2 * Math.random()), m.stopAt - performance.now())));
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const byKind = (t: Tally, kind: string): Latencies => {
  let l = t.byKind.get(kind);
  if (!l) t.byKind.set(kind, (l = new Latencies()));
  return l;
};

export class BuyerClient {
  readonly agent: Agent;
  constructor(connections: number) {
    this.agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
  }

  /** One request; null when no answer came within the timeout (the connection is dropped, as a browser would). */
  async send(m: Market, kind: string, method: 'GET' | 'POST', path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const h: Record<string, string> = { authorization: `Bearer ${token}`, ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    const t0 = performance.now();
    try {
      const res = await request(`${m.origin}${path}`, {
        method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: this.agent, signal: AbortSignal.timeout(m.timeoutMs),
      });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      const ra = Number(res.headers['retry-after']);
      const json = text && String(res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined;
      m.tally.all.add(ms);
      byKind(m.tally, kind).add(ms);
      bump(m.tally.statuses, `${kind} ${res.statusCode}${json?.code ? ` ${json.code}` : ''}`);
      if (kind === 'hold' || kind === 'booking') {
        m.tally.purchasePath.add(ms);
        if (res.statusCode === 503) {
          m.tally.shed.add(ms);
          m.tally.shedAt.push(t0);
        } else m.tally.decided.add(ms);
      }
      return { status: res.statusCode, body: json, ms, retryAfter: Number.isFinite(ra) && ra >= 0 ? ra : 1 };
    } catch (err) {
      const ms = performance.now() - t0;
      if ((err as Error).name === 'TimeoutError' || ms >= m.timeoutMs - 5) {
        bump(m.tally.timeouts, kind);
        // A request the buyer gave up on counts as an answer no faster than the timeout.
        m.tally.all.add(ms);
        byKind(m.tally, kind).add(ms);
        return null;
      }
      bump(m.tally.statuses, `${kind} network ${(err as NodeJS.ErrnoException).code ?? (err as Error).name}`);
      await sleep(100);
      return null;
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Joins the queue and waits to be admitted; the admission token, or null when the run ended first. */
export async function waitForAdmission(c: BuyerClient, m: Market, b: BuyerAccount): Promise<string | null> {
  const base = `/v1/shows/${m.showId}/queue`;
  let queueToken: string | null = null;
  while (performance.now() < m.stopAt) {
    if (!queueToken) {
      const j = await c.send(m, 'queue join', 'POST', base, b.token);
      if (!j) continue;
      if (j.status === 201) {
        queueToken = j.body.queue_token;
        // The join says when asking to be admitted can first say yes.
        await wait(m, Number(j.body.retry_after_seconds ?? 0) * 1000);
        continue;
      }
      await wait(m, j.retryAfter * 1000);
      continue;
    }
    const a = await c.send(m, 'admit', 'POST', `${base}/admit`, b.token, { queue_token: queueToken });
    if (!a) continue;
    if (a.status === 200) { m.tally.admitted++; return a.body.admission_token; }
    if (a.status === 403 && a.body?.code === 'NOT_YET_ADMITTED') {
      m.tally.notYet++;
      if (a.body.sold_out) { m.tally.soldOutSeen++; return null; }
    }
    await wait(m, a.retryAfter * 1000);
  }
  return null;
}

/** One purchase: hold 1–2 seats, book them. 'bought', or why not. */
export async function purchase(c: BuyerClient, m: Market, b: BuyerAccount, admission: string | null): Promise<'bought' | 'pending' | 'sold_out' | 'ended' | 'refused'> {
  const gate: Record<string, string> = admission ? { 'admission-token': admission } : {};
  const holds = `/v1/shows/${m.showId}/holds`;
  let seats = m.seats.pick(1 + ((Math.random() * 2) | 0));
  while (performance.now() < m.stopAt) {
    if (seats.length === 0) return 'sold_out';
    const h = await c.send(m, 'hold', 'POST', holds, b.token, { seats }, gate);
    if (!h) { seats = m.seats.pick(seats.length); continue; }
    if (h.status === 503 || h.status === 429) { await wait(m, h.retryAfter * 1000); continue; }
    if (h.status === 409 && h.body?.code === 'SEAT_UNAVAILABLE') {
      m.tally.seatRacesLost++;
      for (const s of (h.body.taken as string[] | undefined) ?? seats) m.seats.take(s);
      seats = m.seats.pick(seats.length);
      continue;
    }
    if (h.status !== 201) return 'refused';
    for (const s of seats) m.seats.take(s);
    const holdId = h.body.hold_id as string;
    const key = `bench-${randomBytes(9).toString('base64url')}`;
    while (performance.now() < m.stopAt) {
      const k = await c.send(m, 'booking', 'POST', '/v1/bookings', b.token, { hold_id: holdId, payment_method: 'pm_card_visa' }, { ...gate, 'idempotency-key': key });
      if (!k) continue; // the same key: an idempotent replay
      if (k.status === 503 || k.status === 429 || (k.status === 409 && k.body?.code === 'IDEMPOTENCY_KEY_IN_FLIGHT')) {
        await wait(m, k.retryAfter * 1000);
        continue;
      }
      if (k.status === 201 && k.body.status === 'confirmed') {
        m.tally.purchases++;
        m.tally.purchaseTimes.push(performance.now());
        m.tally.seatsBought += seats.length;
        return 'bought';
      }
      if (k.status === 201 && k.body.status === 'pending') { m.tally.pending++; return 'pending'; }
      if (k.status === 409 && k.body?.code === 'HOLD_EXPIRED') break;
      return 'refused';
    }
    seats = m.seats.pick(seats.length);
  }
  return 'ended';
}
