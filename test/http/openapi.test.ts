// The OpenAPI document: valid OpenAPI 3.0 (checked by swagger-parser), with a
// description on every route, parameter and answer, every error code and the
// test payment methods, and Idempotency-Key required where the route needs it.
// That the document is TRUE is checked on every HTTP test's answers (test/support/openapiCheck.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { ERROR_STATUS } from '../../src/domain/errors.js';
import { TEST_PAYMENT_METHODS_FOR_PEOPLE } from '../../src/app/paymentMethods.js';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers } from '../support/catalog.js';
import { expectProblem } from './helpers.js';

type Param = { name: string; in: string; required?: boolean; description?: string };
type Op = { summary?: string; description?: string; parameters?: Param[]; responses: Record<string, { description?: string; content?: Record<string, unknown> }> };

let t: TestService;
let doc: { info: { description: string }; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, { properties: Record<string, { enum?: string[]; description?: string }> }> } };
const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op })));

beforeAll(async () => {
  t = await startTestService({ sweeper: false });
  doc = (await t.http.get('/openapi.json')).body;
});
afterAll(async () => { await t?.close(); });

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const copy = structuredClone(doc);
    await expect(SwaggerParser.validate(copy as never)).resolves.toBeTruthy();
  });

  it('describes every route, every parameter and every answer', () => {
    const missing: string[] = [];
    for (const { at, op } of operations()) {
      if (!op.summary || !op.description) missing.push(`${at}: summary and description`);
      for (const p of op.parameters ?? []) if (!p.description) missing.push(`${at}: ${p.in} parameter ${p.name}`);
      for (const [status, r] of Object.entries(op.responses)) if (!r.description || r.description === 'Default Response') missing.push(`${at}: answer ${status}`);
    }
    expect(missing).toEqual([]);
    expect(operations().length).toBeGreaterThan(25);
  });

  it('declares errors as application/problem+json, with every error code, its status and meaning', () => {
    for (const { at, op } of operations()) {
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(Object.keys(r.content ?? {}), `${at} ${status}`).toEqual(['application/problem+json']);
      }
    }
    const code = doc.components.schemas.Problem!.properties.code!;
    expect(code.enum).toEqual(Object.keys(ERROR_STATUS));
    for (const [name, status] of Object.entries(ERROR_STATUS)) {
      expect(code.description).toContain(`| \`${name}\` | ${status} |`);
      expect(doc.info.description).toContain(`| \`${name}\` | ${status} |`);
    }
  });

  it('tells the test payment methods and what each does', () => {
    const booking = doc.paths['/v1/bookings']!.post!;
    for (const [method, what] of TEST_PAYMENT_METHODS_FOR_PEOPLE) {
      expect(booking.description).toContain(method);
      expect(booking.description).toContain(what);
    }
  });

  it('marks Idempotency-Key required on POST /v1/bookings, and the route still answers 400 IDEMPOTENCY_KEY_MISSING itself', async () => {
    const key = doc.paths['/v1/bookings']!.post!.parameters!.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    expect(key?.required).toBe(true);
    const [buyer] = await registerBuyers(t, 1);
    const r = await t.http.post('/v1/bookings', { hold_id: 'h', payment_method: 'pm_card_visa' }, buyer!.token);
    expectProblem(r, 400, 'IDEMPOTENCY_KEY_MISSING');
  });

  it('answers 304 and 204 without a body, as declared', () => {
    expect(doc.paths['/v1/shows/{id}/seats']!.get!.responses['304']!.content).toBeUndefined();
    expect(doc.paths['/v1/holds/{id}']!.delete!.responses['204']!.content).toBeUndefined();
  });
});
