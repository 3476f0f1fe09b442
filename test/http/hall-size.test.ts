// A hall's size is counted before its layout is expanded seat by seat: a few
// kilobytes of layout naming millions of seats are refused at once (400
// VALIDATION_FAILED naming the row), and the service goes on answering meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { describeAnswer } from '../support/problems.js';
import { expectProblem } from './helpers.js';

let t: TestService;
let venueId: string;
beforeAll(async () => {
  t = await startTestService({ pglite: true, sweeper: false });
  const v = await t.http.post('/v1/admin/venues', { name: 'Arena', city: 'Lyon' }, t.adminToken);
  expect(v.status, describeAnswer(v)).toBe(201);
  venueId = v.body.id as string;
});
afterAll(async () => { await t?.close(); });

const rowsOf = (rows: number, seats: number) => Array.from({ length: rows }, (_, i) => ({ row: `R${i}`, seats, tier: 'standard' }));

describe('a hall of more than 100,000 seats', () => {
  it.each([[150, 100_000], [10_000, 100_000]])('%i rows of %i seats: 400 in well under a second, /healthz answering meanwhile', async (rows, seats) => {
    let polling = true;
    const health: number[] = [];
    const poll = (async () => {
      while (polling) {
        const started = performance.now();
        const h = await t.http.get('/healthz');
        expect(h.status).toBe(200);
        health.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const started = performance.now();
    const r = await t.http.post('/v1/admin/halls', { venue_id: venueId, name: `${rows} rows`, layout: { rows: rowsOf(rows, seats) } }, t.adminToken);
    const ms = performance.now() - started;
    polling = false;
    await poll;
    console.log(`${rows} rows x ${seats} seats: ${r.status} in ${ms.toFixed(0)} ms; /healthz slowest ${Math.max(...health).toFixed(0)} ms of ${health.length}`);
    expectProblem(r, 400, 'VALIDATION_FAILED');
    expect(r.body.errors).toEqual([{ path: '/layout/rows/1/seats', message: expect.stringMatching(/at most 100,000 seats/) }]);
    expect(ms).toBeLessThan(500);
    expect(Math.max(...health)).toBeLessThan(500);
  });

  it('takes exactly 100,000', async () => {
    const r = await t.http.post('/v1/admin/halls', { venue_id: venueId, name: 'Full', layout: { rows: rowsOf(10, 10_000) } }, t.adminToken);
    expect(r.status, describeAnswer(r)).toBe(201);
    expect(r.body.seat_count).toBe(100_000);
  });
});
