import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';
import { createShow, registerBuyers } from './support/catalog.js';

describe('holds on PostgreSQL', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService(); });
  afterAll(async () => { await t?.close(); });

  it('holds seats, refuses taken ones and releases', async () => {
    const { showId } = await createShow(t);
    const [a, b] = await registerBuyers(t, 2);
    const first = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2'] }, a!.token);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ show_id: showId, seats: ['A1', 'A2'], status: 'active', amount: 2000, currency: 'EUR' });
    const second = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2', 'A3'] }, b!.token);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A2'] });
    expect((await t.http.delete(`/v1/holds/${first.body.hold_id}`, a!.token)).status).toBe(204);
    expect((await t.http.delete(`/v1/holds/${first.body.hold_id}`, a!.token)).status).toBe(204);
    const third = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2', 'A3'] }, b!.token);
    expect(third.status).toBe(201);
  });
});
