// A buyer's HTTP client that survives a dying service, and the booking flow a
// real client runs: the same Idempotency-Key and body until a definitive answer.
import { Agent, request } from 'undici';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const jitter = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return Math.floor(n);
}

function count(tally: Record<string, number>, key: string): void {
  tally[key] = (tally[key] ?? 0) + 1;
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code ?? e?.name;
  return typeof code === 'string' ? code : 'unknown';
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A client that reports a lost connection, a refused connect or a timeout as a
 * thrown error (the caller decides whether to repeat), never as an answer.
 * Callers repeat 5xx answers and failed exchanges, so the client counts every
 * one of them here, where no caller can skip it, for the test to assert on.
 */
export class BuyerHttp {
  private readonly agent: Agent;
  /** Every 5xx answer, by "status code" (e.g. "503 OVERLOADED", "500 INTERNAL"). */
  readonly serverErrors: Record<string, number> = {};
  /** The first few 5xx answers in full (method, path, status, body). */
  readonly serverErrorSamples: string[] = [];
  /** Every exchange that got no answer, by error code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...). */
  readonly connectionErrors: Record<string, number> = {};

  constructor(readonly baseUrl: string, private readonly timeoutMs: number, connections = 256) {
    // No keep-alive reuse across a restart matters here: a dead socket throws and the caller retries.
    this.agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 4_000, connectTimeout: 5_000 });
  }

  async send(method: 'GET' | 'POST', path: string, opts: { body?: unknown; token?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const timeout = opts.timeoutMs ?? this.timeoutMs;
    let status: number;
    let text: string;
    let resHeaders: Answer['headers'];
    try {
      const res = await request(`${this.baseUrl}${path}`, {
        method, headers, body, dispatcher: this.agent, headersTimeout: timeout, bodyTimeout: timeout,
      });
      status = res.statusCode;
      resHeaders = res.headers;
      text = await res.body.text();
    } catch (err) {
      count(this.connectionErrors, errorCode(err));
      throw err;
    }
    let parsed: unknown = undefined;
    if (text && String(resHeaders['content-type'] ?? '').includes('json')) {
      try { parsed = JSON.parse(text); } catch { parsed = text; }
    }
    if (status >= 500) {
      const code = (parsed as { code?: unknown } | undefined)?.code;
      count(this.serverErrors, `${status} ${typeof code === 'string' ? code : '-'}`);
      if (this.serverErrorSamples.length < 10) this.serverErrorSamples.push(`${method} ${path.replace(/\?.*/, '')}: ${status} ${text.slice(0, 300)}`);
    }
    return { status, body: parsed, headers: resHeaders };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

export type Definitive = 'confirmed' | 'failed' | 'refunded' | 'hold_expired';

export interface BookingRecord {
  flow: number;
  buyer: number;
  holdId: string;
  seats: string[];
  paymentMethod: string;
  key: string;
  body: { hold_id: string; payment_method: string };
  /** The booking the service created for this key (from its first 201). */
  bookingId: string | null;
  /** status in the first 201 the client saw (confirmed | pending | failed). */
  firstStatus: string | null;
  /** What the client finally learned: the first definitive answer, or a pending booking's outcome by polling. */
  final: Definitive | 'gave_up' | `unexpected_${number}_${string}`;
  /** Time from the first POST to the first 201, and to the definitive outcome. */
  firstAnswerMs: number | null;
  definitiveMs: number | null;
  connErrors: number;
  serverErrors: number;
  inFlight409: number;
  polls: number;
  /** Every 201 body's booking_id for this key: a repeat must name the same booking. */
  bookingIdsSeen: Set<string>;
  /** Every 201 body's status seen for this key, in order. */
  statusesSeen: string[];
  /** The client cancelled the confirmed booking (200 with status cancelled). */
  cancelled: boolean;
  cancelRequests: number;
  cancelRefundAmounts: number[];
}

export interface BookingOptions {
  http: BuyerHttp;
  token: string;
  deadline: number;
  /** Client timeout of one POST /v1/bookings (a real client gives up and repeats the same key). */
  postTimeoutMs?: number;
  onError?: (what: string) => void;
}

/**
 * Pays for a hold the way a careful client does: the same key and body until
 * 201 (or a definitive 4xx), repeating on lost connections, timeouts, 5xx and
 * 409 IDEMPOTENCY_KEY_IN_FLIGHT; then polls a pending booking until it resolves.
 */
export async function bookUntilDefinitive(o: BookingOptions, rec: BookingRecord): Promise<BookingRecord> {
  const started = Date.now();
  while (Date.now() < o.deadline) {
    let r: Answer;
    try {
      r = await o.http.send('POST', '/v1/bookings', { body: rec.body, token: o.token, headers: { 'idempotency-key': rec.key }, timeoutMs: o.postTimeoutMs });
    } catch {
      rec.connErrors++;
      await sleep(jitter(250, 750));
      continue;
    }
    if (r.status === 201) {
      rec.bookingIdsSeen.add(r.body.booking_id);
      rec.statusesSeen.push(r.body.status);
      if (rec.bookingId === null) {
        rec.bookingId = r.body.booking_id;
        rec.firstStatus = r.body.status;
        rec.firstAnswerMs = Date.now() - started;
      }
      if (r.body.status === 'pending') break;
      rec.final = r.body.status as Definitive;
      rec.definitiveMs = Date.now() - started;
      return rec;
    }
    if (r.status === 409 && r.body?.code === 'IDEMPOTENCY_KEY_IN_FLIGHT') {
      rec.inFlight409++;
      // Retry-After: 1, as a polite client honours it.
      await sleep(1000 * Number(r.headers['retry-after'] ?? 1) + jitter(0, 500));
      continue;
    }
    if (r.status >= 500) {
      rec.serverErrors++;
      await sleep(jitter(100, 400));
      continue;
    }
    if (r.status === 409 && r.body?.code === 'HOLD_EXPIRED') {
      rec.final = 'hold_expired';
      rec.definitiveMs = Date.now() - started;
      return rec;
    }
    rec.final = `unexpected_${r.status}_${String(r.body?.code ?? '')}`;
    o.onError?.(`POST /v1/bookings key=${rec.key}: ${r.status} ${JSON.stringify(r.body)}`);
    return rec;
  }
  if (rec.bookingId === null) {
    rec.final = 'gave_up';
    return rec;
  }
  // Pending: poll until the reconciler or a webhook resolves it.
  while (Date.now() < o.deadline) {
    rec.polls++;
    try {
      const r = await o.http.send('GET', `/v1/bookings/${rec.bookingId}`, { token: o.token });
      if (r.status === 200 && r.body.status !== 'pending') {
        rec.final = r.body.status as Definitive;
        rec.definitiveMs = Date.now() - started;
        return rec;
      }
      // 5xx: counted by the client and repeated; any other refusal is a wrong answer.
      if (r.status !== 200 && r.status < 500) {
        rec.final = `unexpected_${r.status}_${String(r.body?.code ?? '')}`;
        o.onError?.(`GET /v1/bookings/${rec.bookingId}: ${r.status} ${JSON.stringify(r.body)}`);
        return rec;
      }
    } catch {
      rec.connErrors++;
    }
    await sleep(jitter(300, 700));
  }
  rec.final = 'gave_up';
  return rec;
}

export function newRecord(p: { flow: number; buyer: number; holdId: string; seats: string[]; paymentMethod: string; key: string }): BookingRecord {
  return {
    ...p,
    body: { hold_id: p.holdId, payment_method: p.paymentMethod },
    bookingId: null, firstStatus: null, final: 'gave_up', firstAnswerMs: null, definitiveMs: null,
    connErrors: 0, serverErrors: 0, inFlight409: 0, polls: 0, bookingIdsSeen: new Set(), statusesSeen: [],
    cancelled: false, cancelRequests: 0, cancelRefundAmounts: [],
  };
}

/**
 * Cancels a confirmed booking with two concurrent requests (a double click),
 * repeating each on lost connections and 5xx until it answers 200.
 */
export async function cancelUntilDone(o: { http: BuyerHttp; token: string; deadline: number; onError?: (what: string) => void }, rec: BookingRecord): Promise<void> {
  const one = async () => {
    while (Date.now() < o.deadline) {
      rec.cancelRequests++;
      let r: Answer;
      try {
        r = await o.http.send('POST', `/v1/bookings/${rec.bookingId}/cancel`, { body: {}, token: o.token });
      } catch {
        await sleep(jitter(100, 400));
        continue;
      }
      if (r.status >= 500) { await sleep(jitter(100, 400)); continue; }
      if (r.status === 200 && r.body.status === 'cancelled') {
        rec.cancelled = true;
        rec.cancelRefundAmounts.push(r.body.refund?.amount);
        return;
      }
      o.onError?.(`cancel ${rec.bookingId}: ${r.status} ${JSON.stringify(r.body)}`);
      return;
    }
  };
  await Promise.all([one(), one()]);
}

/** Hands out fresh seats round-robin over the shows, never the same seat twice. */
export class SeatAllocator {
  private readonly cursors: number[];
  private next = 0;

  constructor(private readonly shows: { showId: string; seats: string[] }[]) {
    this.cursors = shows.map(() => 0);
  }

  take(n: number, showIndex?: number): { showId: string; seats: string[] } {
    const base = showIndex ?? this.next++;
    for (let tries = 0; tries < this.shows.length; tries++) {
      const i = (base + tries) % this.shows.length;
      const show = this.shows[i]!;
      if (this.cursors[i]! + n <= show.seats.length) {
        const seats = show.seats.slice(this.cursors[i]!, this.cursors[i]! + n);
        this.cursors[i]! += n;
        return { showId: show.showId, seats };
      }
    }
    throw new Error('the test ran out of seats: make the halls bigger');
  }
}

export interface HoldOptions {
  http: BuyerHttp;
  token: string;
  deadline: number;
  seats: SeatAllocator;
  count: number;
  showIndex?: number;
}

/**
 * Holds `count` fresh seats. A hold is not idempotent: after a lost answer the
 * hold may exist (an orphan that expires by itself), so a repeat asks for other seats.
 */
export async function holdFreshSeats(o: HoldOptions): Promise<{ holdId: string; showId: string; seats: string[]; tries: number; orphansPossible: number } | null> {
  let tries = 0;
  let orphansPossible = 0;
  let want: { showId: string; seats: string[] } | null = null;
  while (Date.now() < o.deadline) {
    tries++;
    want ??= o.seats.take(o.count, o.showIndex);
    let r: Answer;
    try {
      r = await o.http.send('POST', `/v1/shows/${want.showId}/holds`, { body: { seats: want.seats }, token: o.token });
    } catch (err) {
      // A refused connection reached nobody: the same seats are still free. Anything
      // else (reset, timeout) may have committed the hold: ask for other seats.
      if (!isConnectRefused(err)) {
        orphansPossible++;
        want = null;
      }
      await sleep(jitter(250, 750));
      continue;
    }
    if (r.status === 201) return { holdId: r.body.hold_id, showId: want.showId, seats: want.seats, tries, orphansPossible };
    if (r.status >= 500 || r.status === 409) {
      // 5xx: maybe committed, maybe not; 409: a fresh seat is taken only by one of our own orphans.
      want = null;
      await sleep(jitter(100, 400));
      continue;
    }
    throw new Error(`hold failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return null;
}

export function isConnectRefused(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } } | null;
  return e?.code === 'ECONNREFUSED' || e?.cause?.code === 'ECONNREFUSED';
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function tally<T extends string>(items: T[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of items) out[x] = (out[x] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort());
}
