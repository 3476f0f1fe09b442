// The answer check every test service runs (test/support/openapiCheck.ts) must
// catch what the document does not declare: a status, a content type, a body
// where none is declared, and a body that does not match its schema.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => { t = await startTestService({ sweeper: false }); });
afterAll(async () => { await t?.close(); });

it('finds undeclared answers and bodies that do not match, and lets declared ones pass', async () => {
  const check = t.answers!;
  const real = await t.http.get('/v1/shows/no-such-show');
  expect(real.status).toBe(404);
  expect(check.mismatches).toEqual([]);
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const wrong: [string, string, Parameters<typeof check.check>[2]][] = [
    ['GET', '/v1/shows/x', { ...real, text: JSON.stringify({ ...real.body, code: 'NO_SUCH_CODE' }) }],
    ['GET', '/v1/shows/x', { ...real, text: JSON.stringify({ ...real.body, status: '404' }) }],
    ['GET', '/v1/shows/x', { ...real, status: 418 }],
    ['GET', '/healthz', { status: 200, headers: json, body: null, text: '{"status":1}' }],
    ['GET', '/healthz', { status: 200, headers: { 'content-type': 'text/html' }, body: null, text: 'ok' }],
    ['DELETE', '/v1/holds/h1', { status: 204, headers: {}, body: null, text: 'gone' }],
    ['GET', '/v1/no-such-route', { status: 200, headers: json, body: null, text: '{}' }],
  ];
  for (const [method, path, answer] of wrong) check.check(method, path, answer);
  expect(check.mismatches).toHaveLength(wrong.length);
  check.mismatches.length = 0;
  check.check('DELETE', '/v1/holds/h1', { status: 204, headers: {}, body: null, text: '' });
  check.check('GET', '/healthz?x=1', { status: 200, headers: json, body: null, text: '{"status":"ok"}' });
  expect(check.mismatches).toEqual([]);
});
