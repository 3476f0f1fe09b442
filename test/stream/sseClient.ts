// A Server-Sent Events client for tests, over node:http: parses events, comments
// and `retry:`, keeps what came with arrival times, and follows one show's map
// from the snapshot and deltas (checking delta versions as they come).
import http from 'node:http';
import zlib from 'node:zlib';
import { StringDecoder } from 'node:string_decoder';
import type { TestService } from '../support/service.js';

export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
  at: number;
}

export interface Change { seat: string; status: string }

export class SseConnection {
  readonly events: SseEvent[] = [];
  readonly comments: { text: string; at: number }[] = [];
  retry: number | null = null;
  ended = false;
  /** The body's bytes as they came over the wire (compressed, when the stream is). */
  wireBytes = 0;
  private waiters: (() => void)[] = [];
  private req: http.ClientRequest | null = null;

  private constructor(readonly status: number, readonly headers: http.IncomingHttpHeaders, readonly body: string, private readonly res: http.IncomingMessage | null) {}

  /** GET the stream; resolves once the status line arrived (and, for a non-200, the whole body). */
  static open(baseUrl: string, path: string, headers: Record<string, string> = {}, localAddress?: string): Promise<SseConnection> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers }, agent: false, localAddress }, (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.setEncoding('utf8').on('data', (s: string) => { text += s; }).on('end', () => resolve(new SseConnection(res.statusCode!, res.headers, text, null)));
          return;
        }
        const c = new SseConnection(200, res.headers, '', res);
        c.req = req;
        c.follow(res);
        resolve(c);
      });
      req.on('error', reject);
    });
  }

  private follow(res: http.IncomingMessage): void {
    let buf = '';
    // Where the search for the end of an event resumes: a snapshot of megabytes comes in many pieces.
    let scanned = 0;
    const decoder = new StringDecoder('utf8');
    const text = (b: Buffer) => {
      buf += decoder.write(b);
      let end: number;
      while ((end = buf.indexOf('\n\n', scanned)) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        scanned = 0;
        this.parse(block);
      }
      scanned = Math.max(0, buf.length - 1);
      this.wake();
    };
    const done = () => { this.ended = true; this.wake(); };
    const gzip = res.headers['content-encoding'] === 'gzip';
    res.on('data', (b: Buffer) => {
      this.wireBytes += b.length;
      if (!gzip) text(b);
    });
    if (gzip) {
      // Decoded as a browser does, as it comes; it ends without the gzip trailer (the connection closes).
      const body = res.pipe(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
      body.on('data', text).on('end', done).on('close', done).on('error', done);
    } else res.on('end', done).on('close', done).on('error', done);
  }

  private parse(block: string): void {
    const at = Date.now();
    let event = 'message';
    let id: string | null = null;
    const data: string[] = [];
    let any = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) { this.comments.push({ text: line.slice(1).trim(), at }); continue; }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'retry') this.retry = Number(value);
      else if (field === 'event') { event = value; any = true; }
      else if (field === 'id') { id = value; any = true; }
      else if (field === 'data') { data.push(value); any = true; }
    }
    if (any) this.events.push({ event, id, data: data.join('\n'), at });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits until `pred` holds (checked on every arrival), or fails after `ms`. */
  async until(what: string, pred: () => boolean, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; ${this.events.length} events, ended: ${this.ended}`);
      if (this.ended) throw new Error(`stream ended while waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(100, end - Date.now()));
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  close(): void {
    this.res?.destroy();
    this.req?.destroy();
  }
}

/**
 * Opens a stream and records the answer in the service's OpenAPI check. `from`: the
 * client's own address (another loopback address, 127.0.0.2…, is another client).
 */
export async function openStream(
  t: TestService, showId: string,
  o: { section?: string; lastEventId?: string; query?: string; baseUrl?: string; from?: string; headers?: Record<string, string> } = {},
): Promise<SseConnection> {
  const q = o.query ?? (o.section ? `?section=${encodeURIComponent(o.section)}` : '');
  const path = `/v1/shows/${showId}/seats/stream${q}`;
  const headers = { ...o.headers, ...(o.lastEventId !== undefined ? { 'last-event-id': o.lastEventId } : {}) };
  const c = await SseConnection.open(o.baseUrl ?? t.baseUrl, path, headers, o.from);
  const body = c.status === 200 ? undefined : (JSON.parse(c.body) as unknown);
  t.answers?.check('GET', path, { status: c.status, headers: c.headers, body, text: c.body });
  return c;
}

/** A viewer's copy of a show's map, built from snapshots and deltas, with every version problem it saw. */
export class MapFollower {
  readonly seats = new Map<string, string>();
  version: number | null = null;
  snapshots = 0;
  deltas = 0;
  readonly problems: string[] = [];
  private seen = 0;

  /** Applies the events of `c` not applied yet; `consecutive`: deltas must follow one another by exactly one version. */
  apply(c: SseConnection, consecutive = true): void {
    for (; this.seen < c.events.length; this.seen++) {
      const e = c.events[this.seen]!;
      const data = JSON.parse(e.data) as { version: number; seats?: Change[]; changes?: Change[] };
      if (String(data.version) !== e.id) this.problems.push(`event id ${e.id} is not its version ${data.version}`);
      if (e.event === 'snapshot') {
        if (this.version !== null && data.version < this.version) this.problems.push(`snapshot ${data.version} older than the map's ${this.version}`);
        this.seats.clear();
        for (const s of data.seats!) this.seats.set(s.seat, s.status);
        this.version = data.version;
        this.snapshots++;
      } else if (e.event === 'delta') {
        if (this.version === null) this.problems.push(`delta ${data.version} before any snapshot`);
        else if (consecutive ? data.version !== this.version + 1 : data.version <= this.version) {
          this.problems.push(`delta ${data.version} after ${this.version}`);
        }
        for (const ch of data.changes!) this.seats.set(ch.seat, ch.status);
        this.version = data.version;
        this.deltas++;
      } else this.problems.push(`unexpected event ${e.event}`);
    }
  }

  /** Starts reading a new connection (after a reconnect) from its first event. */
  reset(): void {
    this.seen = 0;
  }
}
