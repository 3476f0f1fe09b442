// Connections a client opens and never uses are capped per address and in total, so
// that idle sockets cannot take the process past its open file limit (EMFILE takes
// the API, /healthz and the database pool down together).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { startTestService, type TestService } from '../support/service.js';
import { CONNECTION_RESERVE, connectionCapacity } from '../../src/http/connectionCaps.js';

/** An idle connection from `from`: resolves once connected, with what the server sends and whether it closed. */
function idleSocket(baseUrl: string, from: string): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let data = '';
    let closed = false;
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: from }, () => resolve({ socket, received: () => data, closed: () => closed }));
    socket.on('data', (b) => { data += b.toString('latin1'); });
    socket.on('close', () => { closed = true; });
    socket.on('error', (err) => { if (!socket.connecting) return; reject(err); });
  });
}

async function healthz(baseUrl: string, from: string): Promise<number> {
  const { Agent } = await import('undici');
  const agent = new Agent({ connect: { localAddress: from } });
  try {
    const r = await request(`${baseUrl}/healthz`, { dispatcher: agent, headersTimeout: 2000 });
    await r.body.text();
    return r.statusCode;
  } finally {
    await agent.close();
  }
}

async function until(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('connection capacity (pure)', () => {
  it('is the soft limit less the reserve and the pool, and unbounded when the limit is', () => {
    expect(connectionCapacity({ limit: { soft: 20_000, hard: 20_000 }, poolSize: 20 })).toBe(20_000 - CONNECTION_RESERVE - 21);
    expect(connectionCapacity({ limit: { soft: Infinity, hard: Infinity }, poolSize: 20 })).toBe(Infinity);
    expect(connectionCapacity({ limit: null, poolSize: 10 })).toBe(1024 - CONNECTION_RESERVE - 11);
    expect(connectionCapacity({ limit: { soft: 50, hard: 50 }, poolSize: 10 })).toBe(1);
  });
});

describe('connections per client address', () => {
  let t: TestService;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    t = await startTestService({ pglite: true, openapiCheck: false, config: { rateLimitExempt: ['127.0.0.9'], connectionsPerAddress: 5 } });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await t?.close();
  });

  it('answers the connection past the cap 503 OVERLOADED with Retry-After and closes it; other addresses and exempt ones are served; a closed one frees its place', async () => {
    const held = [];
    for (let i = 0; i < 5; i++) {
      const c = await idleSocket(t.baseUrl, '127.0.0.2');
      sockets.push(c.socket);
      held.push(c);
    }
    const extra = await idleSocket(t.baseUrl, '127.0.0.2');
    sockets.push(extra.socket);
    await until('the refused connection closed', extra.closed);
    expect(extra.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(extra.received()).toMatch(/\r\nretry-after: 5\r\n/);
    expect(extra.received()).toContain('"code":"OVERLOADED"');
    // The five kept ones were not touched, and the rest of the world is served.
    expect(held.every((c) => !c.closed() && c.received() === '')).toBe(true);
    expect(await healthz(t.baseUrl, '127.0.0.3')).toBe(200);
    for (let i = 0; i < 7; i++) sockets.push((await idleSocket(t.baseUrl, '127.0.0.9')).socket);
    expect(await healthz(t.baseUrl, '127.0.0.9')).toBe(200);
    // One of the five goes: its address may open one again, and it is served.
    held[0]!.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthz(t.baseUrl, '127.0.0.2')).toBe(200);
  });
});

describe('connections in total', () => {
  let t: TestService;
  const sockets: Socket[] = [];
  // Room for 6 client connections once the reserve and the pool (20 + 1) are kept.
  const openFiles = CONNECTION_RESERVE + 21 + 6;
  beforeAll(async () => {
    t = await startTestService({ pglite: true, openapiCheck: false, openFiles: { soft: openFiles, hard: openFiles } });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await t?.close();
  });

  it('closes connections beyond the total as soon as they are accepted, and serves again once some close', async () => {
    expect(t.service.app.server.maxConnections).toBe(6);
    // The test service keeps its own keep-alive connections from setting up: count what is open.
    const open = () => new Promise<number>((r) => t.service.app.server.getConnections((_e, n) => r(n)));
    t.service.app.server.closeIdleConnections();
    await new Promise((r) => setTimeout(r, 100));
    const room = 6 - (await open());
    for (let i = 0; i < room; i++) sockets.push((await idleSocket(t.baseUrl, '127.0.0.4')).socket);
    const beyond = await idleSocket(t.baseUrl, '127.0.0.5');
    sockets.push(beyond.socket);
    await until('the connection beyond the total closed', beyond.closed);
    expect(beyond.received()).toBe('');
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthz(t.baseUrl, '127.0.0.5')).toBe(200);
  });
});
