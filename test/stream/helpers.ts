// Shared set-up of the stream tests: live-map settings shrunk for speed, a hall with sections.
import { loadConfig, type LiveMapSettings } from '../../src/config.js';
import type { TestService } from '../support/service.js';
import type { HttpAnswer } from '../support/http.js';
import type { SseConnection } from './sseClient.js';

export function liveMap(o: Partial<LiveMapSettings> = {}): LiveMapSettings {
  return { ...loadConfig({}).liveMap, feedIntervalMs: 50, heartbeatMs: 200, retryMs: 500, ...o };
}

/** The stream's refusal as an HttpAnswer, for expectProblem. */
export function answerOf(c: SseConnection): HttpAnswer {
  return { status: c.status, headers: c.headers, body: c.status === 200 ? undefined : JSON.parse(c.body), text: c.body };
}

/** A show in a hall of two sections, 101 and 102, of one row of `seats` seats each. */
export async function sectionedShow(t: TestService, seats = 5): Promise<{ showId: string }> {
  const must = (r: HttpAnswer, want: number) => {
    if (r.status !== want) throw new Error(`expected ${want}, got ${r.status}: ${r.text}`);
    return r.body;
  };
  const token = t.adminToken;
  const venue = must(await t.http.post('/v1/admin/venues', { name: 'Arena', city: 'Testville' }, token), 201);
  const hall = must(await t.http.post('/v1/admin/halls', {
    venue_id: venue.id, name: 'Bowl',
    layout: { rows: [{ row: 'A', seats, tier: 'standard', section: '101' }, { row: 'A', seats, tier: 'standard', section: '102' }] },
  }, token), 201);
  const event = must(await t.http.post('/v1/admin/events', { title: 'Concert' }, token), 201);
  const show = must(await t.http.post('/v1/admin/shows', {
    event_id: event.id, hall_id: hall.id, starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: { standard: 1000 },
  }, token), 201);
  return { showId: show.id };
}
