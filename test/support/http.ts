// A small HTTP client over undici with a large connection pool, so tests can fire
// hundreds of truly parallel requests at the service.
import { Agent, request } from 'undici';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The body as decoded (Content-Encoding gzip or br undone, as a browser would). */
  text: string;
  /** The body's bytes as they came over the wire. */
  wire?: Buffer;
}

function decoded(wire: Buffer, encoding: string | string[] | undefined): Buffer {
  if (encoding === 'gzip') return gunzipSync(wire);
  if (encoding === 'br') return brotliDecompressSync(wire);
  return wire;
}

const agent = new Agent({ connections: 512, pipelining: 1, keepAliveTimeout: 10_000 });

/** Something that looks at every answer a service gives (test/support/openapiCheck.ts). */
export interface AnswerObserver {
  check(method: string, path: string, answer: HttpAnswer): void;
}
// By base URL, so that every client of a service (other addresses included) is observed.
const observers = new Map<string, AnswerObserver>();

export function observeAnswers(baseUrl: string, observer: AnswerObserver | null): void {
  if (observer) observers.set(baseUrl, observer);
  else observers.delete(baseUrl);
}

export class HttpClient {
  /** `dispatcher`: e.g. an Agent bound to another loopback address, to speak as another client. */
  constructor(readonly baseUrl: string, private readonly dispatcher: Agent = agent) {}

  async send(method: string, path: string, opts: { body?: unknown; raw?: string | Buffer; token?: string; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await request(`${this.baseUrl}${path}`, { method: method as 'GET', headers, body, dispatcher: this.dispatcher });
    const wire = Buffer.from(await res.body.arrayBuffer());
    const text = decoded(wire, res.headers['content-encoding']).toString('utf8');
    let parsed: unknown = undefined;
    if (text && String(res.headers['content-type'] ?? '').includes('json')) parsed = JSON.parse(text);
    const answer = { status: res.statusCode, headers: res.headers, body: parsed, text, wire };
    observers.get(this.baseUrl)?.check(method, path, answer);
    return answer;
  }

  get(path: string, token?: string, headers?: Record<string, string>) {
    return this.send('GET', path, { token, headers });
  }
  post(path: string, body: unknown, token?: string, headers?: Record<string, string>) {
    return this.send('POST', path, { body, token, headers });
  }
  patch(path: string, body: unknown, token?: string) {
    return this.send('PATCH', path, { body, token });
  }
  delete(path: string, token?: string) {
    return this.send('DELETE', path, { token });
  }
}
