// q finds a title by the beginnings of its words ("moo nor" finds "Northern Moons"),
// on GET /v1/events and GET /v1/shows, on PostgreSQL and on the embedded PGlite that
// `npm start` uses by default; a typo in a longer word is forgiven when nothing
// matches as typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

describe.each([['PostgreSQL', false], ['PGlite', true]] as const)('q by the beginnings of words, on %s', (_name, pglite) => {
  let t: TestService;
  const ids: Record<string, string> = {};
  const shows: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestService({ pglite, sweeper: false });
    const post = async (path: string, body: unknown): Promise<string> => {
      const r = await t.http.post(path, body, t.adminToken);
      if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
      return r.body.id as string;
    };
    const hall = await post('/v1/admin/halls', {
      venue_id: await post('/v1/admin/venues', { name: 'Kino am Kanal', city: 'Berlin', timezone: 'Europe/Berlin' }),
      name: 'Saal 1', layout: { rows: [{ row: 'A', seats: 2, tier: 'standard' }] },
    });
    const titles = ['Paper Moons', 'Northern Lights', 'Northern Moons', 'The Long Matinee', 'Night of the Long Knives'];
    for (const [i, title] of titles.entries()) {
      ids[title] = await post('/v1/admin/events', { title, kind: 'film' });
      shows[title] = await post('/v1/admin/shows', {
        event_id: ids[title], hall_id: hall, starts_at: new Date(Date.now() + (i + 1) * 86_400_000).toISOString(),
        currency: 'EUR', price_tiers: { standard: 1100 },
      });
    }
  });
  afterAll(async () => { await t?.close(); });

  /** The titles GET /v1/events lists for q, soonest first. */
  const found = async (q: string): Promise<string[]> => {
    const r = await t.http.get(`/v1/events?q=${encodeURIComponent(q)}`);
    expect(r.status, r.text).toBe(200);
    return (r.body.events as { title: string }[]).map((e) => e.title);
  };

  it('"moon", "north" and "pap" find the titles whose words they begin, in any case', async () => {
    expect(await found('moon')).toEqual(['Paper Moons', 'Northern Moons']);
    expect(await found('north')).toEqual(['Northern Lights', 'Northern Moons']);
    expect(await found('pap')).toEqual(['Paper Moons']);
    expect(await found('PAP')).toEqual(['Paper Moons']);
    expect(await found('p')).toEqual(['Paper Moons']);
  });

  it('every word of q must begin a word of the title, in any order', async () => {
    expect(await found('moo nor')).toEqual(['Northern Moons']);
    expect(await found('  Nor,  LIG ')).toEqual(['Northern Lights']);
    expect(await found('the long')).toEqual(['The Long Matinee', 'Night of the Long Knives']);
    expect(await found('oons')).toEqual([]);
    expect(await found('paper lights')).toEqual([]);
  });

  it('a typo in a word of five letters or more is forgiven, only when nothing matches as typed', async () => {
    expect(await found('nothern')).toEqual(['Northern Lights', 'Northern Moons']);
    expect(await found('matinnee')).toEqual(['The Long Matinee']);
    expect(await found('nigth')).toEqual(['Night of the Long Knives']);
    // "lights" is one letter from "night", but "night" matches as typed
    expect(await found('night')).toEqual(['Night of the Long Knives']);
    // four letters: too many neighbours ("moon": noon, mood, soon) to guess
    expect(await found('mpon')).toEqual([]);
    // two typos are not one
    expect(await found('nprthenn')).toEqual([]);
  });

  it('GET /v1/shows takes q the same way', async () => {
    const r = await t.http.get('/v1/shows?q=pap&city=berlin');
    expect(r.status, r.text).toBe(200);
    expect(r.body.shows.map((s: { id: string }) => s.id)).toEqual([shows['Paper Moons']]);
    const typo = await t.http.get('/v1/shows?q=nothern%20moo');
    expect(typo.body.shows.map((s: { id: string }) => s.id)).toEqual([shows['Northern Moons']]);
  });
});
