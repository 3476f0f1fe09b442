// The HTTP layer's own refusals (API.md Conventions): what Node's parser and
// server answer before any route runs is problem+json too — oversized headers
// (431), malformed requests (400), an unknown Expect (417), CONNECT, a missing
// Host, and requests that arrive while the instance shuts down (503). Spoken over
// raw sockets, since no HTTP client sends such requests.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import type { HttpAnswer } from '../support/http.js';
import { expectProblem, sleep } from './helpers.js';

let t: TestService;
beforeAll(async () => { t = await startTestService({ sweeper: false }); });
afterAll(async () => { await t?.close(); });

const portOf = (svc: TestService) => Number(new URL(svc.baseUrl).port);

/** Every HTTP/1.1 response in `bytes` (each with a content-length), in order. */
function parseResponses(bytes: Buffer): HttpAnswer[] {
  const answers: HttpAnswer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`an incomplete response: ${rest.toString().slice(0, 200)}`);
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 'NaN');
    if (!Number.isInteger(length)) throw new Error(`a response without content-length: ${statusLine} ${JSON.stringify(headers)}`);
    const text = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
    answers.push({ status, headers, text, body: /json/.test(headers['content-type'] ?? '') && text ? JSON.parse(text) : undefined });
    rest = rest.subarray(end + 4 + length);
  }
  return answers;
}

/** Sends raw bytes (in steps, when given several) and reads until the server closes the connection. */
function exchange(port: number, ...steps: (string | (() => Promise<unknown>))[]): Promise<HttpAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('the server did not close the connection within 5 s')); }, 5000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      try { resolve(parseResponses(Buffer.concat(chunks))); } catch (err) { reject(err); }
    });
    // A step that throws fails the exchange (not an unhandled rejection).
    socket.on('connect', () => {
      (async () => {
        for (const step of steps) {
          if (typeof step === 'string') socket.write(step);
          else await step();
        }
      })().catch((err: unknown) => { reject(err); socket.destroy(); });
    });
  });
}

async function onlyAnswer(request: string, port = portOf(t)): Promise<HttpAnswer> {
  const answers = await exchange(port, request);
  expect(answers, JSON.stringify(answers.map((a) => `${a.status} ${a.text}`))).toHaveLength(1);
  return answers[0]!;
}

const json = (method: string, path: string, body: string, headers = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: boxoffice.test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`;

describe("the parser's refusals", () => {
  it('20 KB of headers: 431 problem+json', async () => {
    const r = await onlyAnswer(`GET /healthz HTTP/1.1\r\nHost: boxoffice.test\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectProblem(r, 431, 'VALIDATION_FAILED');
  });

  it('many headers adding up to 32 KB, and a 20 KB URL: 431 problem+json', async () => {
    const many = Array.from({ length: 64 }, (_, i) => `X-H${i}: ${'b'.repeat(500)}\r\n`).join('');
    expectProblem(await onlyAnswer(`GET /healthz HTTP/1.1\r\nHost: boxoffice.test\r\n${many}\r\n`), 431, 'VALIDATION_FAILED');
    expectProblem(await onlyAnswer(`GET /v1/shows?q=${'c'.repeat(20_000)} HTTP/1.1\r\nHost: boxoffice.test\r\n\r\n`), 431, 'VALIDATION_FAILED');
  });

  const malformed: [string, string][] = [
    ['a garbage request line', 'HELLO WORLD\r\n\r\n'],
    ['an unknown HTTP version', 'GET /healthz HTTP/9.9\r\nHost: boxoffice.test\r\n\r\n'],
    ['a header name with a space', 'GET /healthz HTTP/1.1\r\nHost: boxoffice.test\r\nBad Header: x\r\n\r\n'],
    ['both Content-Length and Transfer-Encoding', 'POST /v1/users HTTP/1.1\r\nHost: boxoffice.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a negative Content-Length', 'POST /v1/users HTTP/1.1\r\nHost: boxoffice.test\r\nContent-Length: -1\r\n\r\n{}'],
    ['a chunk size that is not hex', 'POST /v1/users HTTP/1.1\r\nHost: boxoffice.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
  ];
  for (const [name, request] of malformed) {
    it(`${name}: 400 problem+json`, async () => {
      expectProblem(await onlyAnswer(request), 400, 'VALIDATION_FAILED');
    });
  }

  it('garbage after a good request on a kept-alive connection: 400 problem+json after the first answer', async () => {
    const answers = await exchange(portOf(t), 'GET /healthz HTTP/1.1\r\nHost: boxoffice.test\r\n\r\n', () => sleep(200), 'NOT HTTP AT ALL\r\n\r\n');
    expect(answers.map((a) => a.status)).toEqual([200, 400]);
    expectProblem(answers[1]!, 400, 'VALIDATION_FAILED');
  });
});

describe("Node's and Fastify's other refusals", () => {
  it('an HTTP/1.1 request without Host: 400 problem+json', async () => {
    expectProblem(await onlyAnswer('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'VALIDATION_FAILED');
    // HTTP/1.0 needs no Host.
    expect((await onlyAnswer('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('an Expect other than 100-continue: 417 problem+json', async () => {
    expectProblem(await onlyAnswer(json('POST', '/v1/sessions', '{}', 'Expect: the-moon\r\n')), 417, 'VALIDATION_FAILED');
  });

  it('CONNECT: 404 problem+json', async () => {
    expectProblem(await onlyAnswer('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 404, 'NOT_FOUND');
  });

  it('a body over 64 KiB by Content-Length, a media type not understood (415), a method no route has: problem+json', async () => {
    const big = `POST /v1/users HTTP/1.1\r\nHost: boxoffice.test\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n{}`;
    expectProblem(await onlyAnswer(big), 400, 'VALIDATION_FAILED');
    expectProblem(await onlyAnswer(json('POST', '/v1/users', '{}').replace('application/json', 'application/xml')), 415, 'VALIDATION_FAILED');
    for (const method of ['PROPFIND', 'TRACE', 'OPTIONS']) {
      expectProblem(await onlyAnswer(`${method} /healthz HTTP/1.1\r\nHost: boxoffice.test\r\nConnection: close\r\n\r\n`), 404, 'NOT_FOUND');
    }
  });

  it('a request arriving on an open connection while the instance shuts down: 503 NOT_READY problem+json', async () => {
    const svc = await startTestService({ sweeper: false });
    try {
      const body = JSON.stringify({ email: 'nobody@example.test', password: 'not-the-password' });
      const head = `POST /v1/sessions HTTP/1.1\r\nHost: boxoffice.test\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      let closed: Promise<void> | undefined;
      // The first request is in flight (its body half sent) when the close begins, so its
      // connection stays open; the second, pipelined behind it, arrives during the close.
      const answers = await exchange(portOf(svc),
        head + body.slice(0, 10),
        async () => { await sleep(200); closed = svc.service.app.close(); await sleep(200); },
        body.slice(10) + 'GET /v1/shows HTTP/1.1\r\nHost: boxoffice.test\r\n\r\n');
      await closed;
      expect(answers.map((a) => a.status)).toEqual([401, 503]);
      expectProblem(answers[1]!, 503, 'NOT_READY');
      expect(String(answers[1]!.headers.connection)).toBe('close');
    } finally {
      await svc.close();
    }
  });
});
