// The virtual buyers' HTTP client: one undici pool of keep-alive connections for
// every buyer (one event loop), a timeout per request after which the buyer gives
// up on it as a browser would, and every answer's latency recorded under its step.
// A request waits for a free connection in ./connectionSlots.ts, not in undici's
// queue: giving up there costs no connection.
import { Agent, request } from 'undici';
import { ConnectionSlots } from './connectionSlots.js';
import type { Recorder, Step } from './recorder.js';

export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Retry-After in seconds (1 when the answer has none). */
  retryAfter: number;
}

export interface SendOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;

export class BuyerHttp {
  private readonly agent: Agent;
  private readonly slots: ConnectionSlots;

  constructor(private readonly origin: string, connections: number, private readonly rec: Recorder) {
    this.agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    this.slots = new ConnectionSlots(connections);
  }

  /** One request; null when no answer came in time or the connection failed (the caller decides to retry). */
  async send(step: Step, method: 'GET' | 'POST' | 'DELETE', path: string, o: SendOptions = {}): Promise<Reply | null> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const t0 = performance.now();
    if (!(await this.slots.take(timeoutMs))) {
      // No connection came free in time: the buyer gives up before anything was sent.
      this.rec.latency(step, performance.now() - t0, 'timeout');
      this.rec.count('timeouts');
      return null;
    }
    let pause = false;
    // A timer cleared when the answer is in. AbortSignal.timeout's timer fires after every
    // request, answered or not, and aborts its signal if that is still on the heap: in a
    // profile of a cinema rehearsal, making those signals, their DOMExceptions and abort
    // events was about 5 % of the buyers' busy time, besides the garbage.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException('the buyer gave up waiting', 'TimeoutError')), Math.max(1, Math.ceil(timeoutMs - (performance.now() - t0))));
    try {
      const res = await request(`${this.origin}${path}`, {
        method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), dispatcher: this.agent, signal: abort.signal,
      });
      const text = await res.body.text();
      const json = text && String(res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined;
      this.rec.latency(step, performance.now() - t0, `${res.statusCode}${json?.code ? ` ${json.code}` : ''}`);
      if (res.statusCode === 503) this.rec.count('shed');
      if (res.statusCode === 429) this.rec.count('limited');
      const ra = Number(res.headers['retry-after']);
      return { status: res.statusCode, body: json, retryAfter: Number.isFinite(ra) && ra >= 0 ? ra : 1 };
    } catch (err) {
      const ms = performance.now() - t0;
      const timedOut = (err as Error).name === 'TimeoutError' || ms >= timeoutMs - 5;
      // A request the buyer gave up on counts no faster than its timeout.
      this.rec.latency(step, ms, timedOut ? 'timeout' : `network ${(err as NodeJS.ErrnoException).code ?? (err as Error).name}`);
      if (timedOut) this.rec.count('timeouts');
      else pause = true;
      return null;
    } finally {
      clearTimeout(timer);
      this.slots.release();
      // After a failed connection, a moment before the caller tries again (its slot already given back).
      if (pause) await new Promise((r) => setTimeout(r, 200));
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
