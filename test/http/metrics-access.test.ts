// Who may read /metrics (README "Configuration"): open by default, for
// compatibility; with METRICS_TOKEN only with that bearer token (401
// UNAUTHENTICATED problem+json otherwise); with METRICS_PORT only on that
// separate listener, the API's port answering 404.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestService, type TestService } from '../support/service.js';
import { HttpClient } from '../support/http.js';
import { registerBuyers } from '../support/catalog.js';
import { expectProblem } from './helpers.js';

const TOKEN = 'metrics-token-0123456789abcdef';

function expectMetrics(r: { status: number; headers: Record<string, unknown>; text: string }) {
  expect(r.status, r.text.slice(0, 200)).toBe(200);
  expect(String(r.headers['content-type'])).toMatch(/^text\/plain/);
  expect(r.text).toMatch(/^# TYPE boxoffice_hold_attempts_total counter$/m);
}

describe('METRICS_TOKEN and METRICS_PORT in the environment', () => {
  it('are parsed once at boot: unset is null, a short token, a bad port or the API port refuse to start', () => {
    expect(loadConfig({})).toMatchObject({ metricsToken: null, metricsPort: null });
    expect(loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9464' })).toMatchObject({ metricsToken: TOKEN, metricsPort: 9464 });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '-1' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(/METRICS_PORT/);
  });
});

describe('neither set', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService({ sweeper: false }); });
  afterAll(async () => { await t?.close(); });

  it('/metrics stays open on the API port, as before', async () => {
    expectMetrics(await t.http.get('/metrics'));
    expect(await t.service.listenMetrics()).toBeNull();
  });
});

describe('METRICS_TOKEN', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService({ sweeper: false, config: { metricsToken: TOKEN } }); });
  afterAll(async () => { await t?.close(); });

  it('/metrics answers only to that bearer token; anything else is 401 UNAUTHENTICATED problem+json', async () => {
    expectMetrics(await t.http.get('/metrics', TOKEN));
    expectMetrics(await t.http.get('/metrics', undefined, { authorization: `bearer ${TOKEN}` }));
    const [buyer] = await registerBuyers(t, 1);
    for (const wrong of [undefined, `${TOKEN}x`, TOKEN.slice(0, -1), 'x', buyer!.token, t.adminToken]) {
      expectProblem(await t.http.get('/metrics', wrong), 401, 'UNAUTHENTICATED');
    }
    expectProblem(await t.http.get('/metrics', undefined, { authorization: TOKEN }), 401, 'UNAUTHENTICATED');
    expectProblem(await t.http.get('/metrics', undefined, { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }), 401, 'UNAUTHENTICATED');
  });
});

describe('METRICS_PORT', () => {
  let t: TestService;
  let metrics: HttpClient;
  let metricsPort: number;
  beforeAll(async () => {
    t = await startTestService({ sweeper: false, config: { metricsPort: 0 } });
    const address = await t.service.listenMetrics();
    metricsPort = address!.port;
    metrics = new HttpClient(`http://127.0.0.1:${metricsPort}`);
  });
  afterAll(async () => { await t?.close(); });

  it('/metrics is served on the separate port only; the API port answers 404 NOT_FOUND', async () => {
    expect(metricsPort).not.toBe(Number(new URL(t.baseUrl).port));
    expectMetrics(await metrics.get('/metrics'));
    expectProblem(await t.http.get('/metrics'), 404, 'NOT_FOUND');
    // The API is not served on the metrics port.
    expectProblem(await metrics.get('/v1/shows'), 404, 'NOT_FOUND');
    expectProblem(await metrics.get('/healthz'), 404, 'NOT_FOUND');
    expectProblem(await metrics.send('POST', '/metrics', { body: {} }), 404, 'NOT_FOUND');
  });

  it('with METRICS_TOKEN too, the separate port needs the token; the listener closes with the service', async () => {
    const both = await startTestService({ sweeper: false, config: { metricsPort: 0, metricsToken: TOKEN } });
    let port = 0;
    try {
      port = (await both.service.listenMetrics())!.port;
      const client = new HttpClient(`http://127.0.0.1:${port}`);
      expectProblem(await client.get('/metrics'), 401, 'UNAUTHENTICATED');
      expectProblem(await client.get('/metrics', 'wrong-token-wrong-token'), 401, 'UNAUTHENTICATED');
      expectMetrics(await client.get('/metrics', TOKEN));
      expectProblem(await both.http.get('/metrics', TOKEN), 404, 'NOT_FOUND');
    } finally {
      await both.close();
    }
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => { s.destroy(); resolve(false); });
      s.on('error', () => resolve(true));
    });
    expect(refused, 'the metrics port is closed after the service closes').toBe(true);
  });
});
