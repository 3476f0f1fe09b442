// API.md Conventions: every answer carries X-Content-Type-Options: nosniff, the
// answers that bypass Fastify's hooks included (the map's fast lane, the live map's
// SSE stream, the HTTP layer's own refusals); pages (the web app, /docs) carry a
// Content-Security-Policy without inline scripts that forbids framing, and a
// Referrer-Policy.
import net from 'node:net';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';

let t: TestService;
let showId: string;
beforeAll(async () => {
  t = await startTestService({ sweeper: false, config: { seatMapCacheMs: 600_000 } });
  ({ showId } = await createShow(t, { rows: 2, seatsPerRow: 5 }));
});
afterAll(async () => { await t?.close(); });

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}${path}`, { headers });

/** The policy's directives by name. */
function directives(policy: string | null): Map<string, string> {
  expect(policy).toBeTruthy();
  return new Map(policy!.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0]!, d.slice(d.indexOf(' ') + 1)]));
}

function expectPagePolicy(res: Response): void {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const csp = directives(res.headers.get('content-security-policy'));
  expect(csp.get('script-src')).toBe("'self'");
  expect(csp.get('frame-ancestors')).toBe("'none'");
  expect(csp.get('object-src')).toBe("'none'");
  expect(csp.get('base-uri')).toBe("'none'");
  expect(csp.get('default-src')).toBe("'self'");
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
}

describe('X-Content-Type-Options: nosniff on every answer', () => {
  it('an API answer, a 404 and a validation problem', async () => {
    for (const [path, status] of [['/v1/shows', 200], ['/no/such/route', 404], ['/v1/shows?nope=1', 400], ['/healthz', 200]] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      // An API answer is no page: no page policy needed.
      expect(res.headers.get('content-type'), path).not.toContain('text/html');
    }
  });

  it("the map's fast lane, both 200 and 304", async () => {
    const path = `/v1/shows/${showId}/seats`;
    await get(path); // builds the map
    const before = t.service.ctx.metrics.seatMapFastTally.answers;
    const res = await get(path);
    expect(res.status).toBe(200);
    const etag = res.headers.get('etag')!;
    const again = await get(path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(t.service.ctx.metrics.seatMapFastTally.answers - before, 'answered by the fast lane').toBe(2);
    expect([res.headers.get('x-content-type-options'), again.headers.get('x-content-type-options')]).toEqual(['nosniff', 'nosniff']);
  });

  it('the live map stream (SSE)', async () => {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      const req = http.get(`${t.baseUrl}/v1/shows/${showId}/seats/stream`, (res) => {
        expect(res.headers['content-type']).toContain('text/event-stream');
        resolve(res.headers);
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it("the HTTP layer's own refusals: 431 for oversized headers, 417 for an unknown Expect", async () => {
    const raw = (request: string) => new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => { socket.destroy(); reject(new Error('no answer in 5 s')); }, 5000);
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', () => {});
      socket.on('close', () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString('latin1')); });
      socket.on('connect', () => socket.write(request));
    });
    const tooBig = await raw(`GET /healthz HTTP/1.1\r\nHost: boxoffice.test\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(tooBig).toMatch(/^HTTP\/1\.1 431 /);
    expect(tooBig.toLowerCase()).toContain('\r\nx-content-type-options: nosniff\r\n');
    const expectation = await raw('POST /v1/users HTTP/1.1\r\nHost: boxoffice.test\r\nExpect: 200-ok\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(expectation).toMatch(/^HTTP\/1\.1 417 /);
    expect(expectation.toLowerCase()).toContain('\r\nx-content-type-options: nosniff\r\n');
  });
});

describe('pages', () => {
  it("the web app's pages, at / and at any address a browser navigates to", async () => {
    for (const path of ['/', '/shows/anything']) {
      const res = await get(path, { accept: 'text/html' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expectPagePolicy(res);
      expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    }
  });

  it('/docs, whose styles may be inline but never its scripts', async () => {
    const res = await get('/docs/static/index.html');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expectPagePolicy(res);
  });
});
