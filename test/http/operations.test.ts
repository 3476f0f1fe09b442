// Operations routes: liveness, readiness (and 503 when the database is gone),
// Prometheus metrics, the OpenAPI document and the docs page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestService, type TestService } from '../support/service.js';
import { ADMIN_URL } from '../support/database.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { expectProblem } from './helpers.js';

let t: TestService;
beforeAll(async () => { t = await startTestService(); });
afterAll(async () => { await t?.close(); });

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return undefined;
}

describe('operations', () => {
  it('GET /healthz answers 200', async () => {
    const r = await t.http.get('/healthz');
    expect(r.status).toBe(200);
  });

  it('GET /readyz answers 200 while the database answers', async () => {
    const r = await t.http.get('/readyz');
    expect(r.status).toBe(200);
  });

  it('GET /readyz answers 503 NOT_READY once the database is closed; /healthz stays 200', async () => {
    const svc = await startTestService({ sweeper: false });
    const dbName = (await svc.service.ctx.db.query<{ name: string }>('select current_database() as name')).rows[0]!.name;
    try {
      expect((await svc.http.get('/readyz')).status).toBe(200);
      await svc.service.ctx.db.close();
      const started = Date.now();
      const r = await svc.http.get('/readyz');
      expectProblem(r, 503, 'NOT_READY');
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await svc.http.get('/healthz')).status).toBe(200);
    } finally {
      // The pool is already ended, so the service's own close fails on it; drop the database here.
      await svc.close().catch(() => {});
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      try {
        await admin.query(`drop database if exists ${dbName} with (force)`);
      } finally {
        await admin.end();
      }
    }
  });

  it('GET /metrics has hold attempts by result, the hold duration histogram and the pool gauge', async () => {
    const { showId } = await createShow(t, { rows: 2, seatsPerRow: 5 });
    const [a, b] = await registerBuyers(t, 2);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, a!.token)).status).toBe(201);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2'] }, a!.token)).status).toBe(201);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A3'] }, b!.token)).status).toBe(409);

    const r = await t.http.get('/metrics');
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^# TYPE boxoffice_hold_attempts_total counter$/m);
    expect(sample(r.text, 'boxoffice_hold_attempts_total', { result: 'held' })).toBe(2);
    expect(sample(r.text, 'boxoffice_hold_attempts_total', { result: 'seat_unavailable' })).toBe(1);
    expect(r.text).toMatch(/^boxoffice_hold_duration_seconds_bucket\{le="[^"]+"\} \d+$/m);
    expect(sample(r.text, 'boxoffice_hold_duration_seconds_count')).toBe(3);
    expect(sample(r.text, 'boxoffice_hold_duration_seconds_bucket', { le: '+Inf' })).toBe(3);
    const total = sample(r.text, 'boxoffice_db_pool_connections', { state: 'total' });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(20);
    const idle = sample(r.text, 'boxoffice_db_pool_connections', { state: 'idle' });
    expect(idle).toBeGreaterThanOrEqual(0);
    expect(idle, 'idle connections are some of the open ones').toBeLessThanOrEqual(total!);
    expect(sample(r.text, 'boxoffice_db_pool_connections', { state: 'waiting' })).toBe(0);
  });

  it('GET /openapi.json is an OpenAPI 3 document of the API', async () => {
    const r = await t.http.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/json/);
    const doc = r.body;
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info?.title).toBeTruthy();
    const expected: [string, string][] = [
      ['/v1/users', 'post'], ['/v1/sessions', 'post'], ['/v1/admin/users/{id}/role', 'post'],
      ['/v1/admin/venues', 'post'], ['/v1/admin/halls', 'post'], ['/v1/admin/events', 'post'],
      ['/v1/admin/shows', 'post'], ['/v1/admin/shows/{id}', 'patch'], ['/v1/shows', 'get'], ['/v1/shows/{id}', 'get'],
      ['/v1/shows/{id}/seats', 'get'], ['/v1/shows/{id}/holds', 'post'], ['/v1/holds/{id}', 'get'], ['/v1/holds/{id}', 'delete'],
      ['/healthz', 'get'], ['/readyz', 'get'], ['/metrics', 'get'],
    ];
    for (const [path, method] of expected) {
      expect(doc.paths?.[path]?.[method], `${method.toUpperCase()} ${path} in the OpenAPI document`).toBeDefined();
    }
    const hold = doc.paths['/v1/shows/{id}/holds'].post;
    expect(hold.security).toEqual([{ bearer: [] }]);
    // The body is chosen seats or best available (API.md, Holds): both forms are in the document.
    const body = hold.requestBody?.content?.['application/json']?.schema;
    const forms: { properties?: Record<string, { type?: string }> }[] = body?.anyOf ?? body?.oneOf ?? [body];
    expect(forms.find((f) => f.properties?.seats)?.properties?.seats?.type).toBe('array');
    expect(forms.find((f) => f.properties?.best_available)?.properties?.best_available?.type).toBe('object');
    expect(Object.keys(hold.responses)).toEqual(expect.arrayContaining(['201', '400', '403', '404', '409']));
    expect(doc.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('GET /docs answers an HTML page (following redirects)', async () => {
    let path = '/docs';
    let r = await t.http.get(path);
    for (let hops = 0; r.status >= 300 && r.status < 400 && hops < 5; hops++) {
      path = new URL(String(r.headers.location), `${t.baseUrl}${path}`).pathname;
      r = await t.http.get(path);
    }
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^text\/html/);
    expect(r.text).toMatch(/<html/i);
    expect(r.text.toLowerCase()).toContain('swagger');
  });
});
