// The home page's search: a title is found by the beginnings of its words, the city
// is chosen from the cities that have shows, and the filters live in the address, so
// a search can be shared and survives a reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { launchBrowser, openPage, seriousViolations, describeInBrowser } from '../support/browser.js';
import { cityChoices, distinctCities, filtersFrom, searchOf } from '../../web/src/searchFilters.js';

const WAIT = { timeout: 5000 };

describeInBrowser('web app: search', () => {
  let t: TestService;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    const post = async (path: string, body: unknown): Promise<string> => {
      const r = await t.http.post(path, body, t.adminToken);
      if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
      return r.body.id as string;
    };
    const hallIn = async (city: string) => post('/v1/admin/halls', {
      venue_id: await post('/v1/admin/venues', { name: `Kino ${city}`, city, timezone: 'UTC' }),
      name: 'Screen 1', layout: { rows: [{ row: 'A', seats: 4, tier: 'standard' }] },
    });
    const berlin = await hallIn('Berlin');
    const lisbon = await hallIn('Lisbon');
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    const plan: [string, string, number][] = [['Paper Moons', berlin, 2], ['Northern Lights', lisbon, 3], ['The Long Matinee', lisbon, 4]];
    for (const [title, hall, days] of plan) {
      const event = await post('/v1/admin/events', { title, kind: 'film' });
      await post('/v1/admin/shows', { event_id: event, hall_id: hall, starts_at: inDays(days), currency: 'EUR', price_tiers: { standard: 900 } });
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const titles = (page: Page) => page.locator('.cards h2').allTextContents();
  /** Waits until the list shows exactly `want` (the search answers after a short pause). */
  const listed = async (page: Page, want: string[]) => {
    await expect.poll(() => titles(page), WAIT).toEqual(want);
  };

  it('typing the beginning of a word finds the title: "moon" finds Paper Moons', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/');
    await listed(page, ['Paper Moons', 'Northern Lights', 'The Long Matinee']);
    await page.getByLabel('Title').fill('moon');
    await listed(page, ['Paper Moons']);
    await page.getByLabel('Title').fill('north');
    await listed(page, ['Northern Lights']);
    await page.getByLabel('Title').fill('pap');
    await listed(page, ['Paper Moons']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the city is a choice among the cities with shows, and the filters survive a reload', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/');
    await listed(page, ['Paper Moons', 'Northern Lights', 'The Long Matinee']);
    const city = page.getByLabel('City');
    expect(await city.evaluate((el) => el.tagName)).toBe('SELECT');
    await expect.poll(() => city.locator('option').allTextContents(), WAIT).toEqual(['Any city', 'Berlin', 'Lisbon']);
    await city.selectOption('Lisbon');
    await listed(page, ['Northern Lights', 'The Long Matinee']);
    await page.getByLabel('Title').fill('mat');
    await listed(page, ['The Long Matinee']);
    await expect.poll(() => new URL(page.url()).searchParams.toString(), WAIT).toBe('q=mat&city=Lisbon');

    await page.reload();
    await listed(page, ['The Long Matinee']);
    expect(await page.getByLabel('City').inputValue()).toBe('Lisbon');
    expect(await page.getByLabel('Title').inputValue()).toBe('mat');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a shared address opens with its search: /?city=berlin lists what is on in Berlin', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/?city=berlin');
    await listed(page, ['Paper Moons']);
    await expect.poll(() => page.getByLabel('City').inputValue(), WAIT).toBe('Berlin');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('search filters in the address', () => {
  it('read from and written to the query string, empty ones left out', () => {
    expect(filtersFrom('?q=moon&city=Berlin')).toEqual({ q: 'moon', city: 'Berlin', date: '' });
    expect(filtersFrom('')).toEqual({ q: '', city: '', date: '' });
    expect(searchOf({ q: ' paper moons ', city: '', date: '2026-12-24' })).toBe('?q=paper+moons&date=2026-12-24');
    expect(searchOf({ q: '  ', city: '', date: '' })).toBe('');
    expect(filtersFrom(searchOf({ q: 'a&b=c', city: 'São Paulo', date: '' }))).toEqual({ q: 'a&b=c', city: 'São Paulo', date: '' });
  });

  it("the city list: each city once, sorted; the address's city is chosen as listed, or added", () => {
    const cities = distinctCities(['Lisbon', 'Berlin', 'lisbon', 'Pune']);
    expect(cities).toEqual(['Berlin', 'Lisbon', 'Pune']);
    expect(cityChoices(cities, 'berlin')).toEqual({ options: cities, chosen: 'Berlin' });
    expect(cityChoices(cities, '')).toEqual({ options: cities, chosen: '' });
    expect(cityChoices(cities, 'Oslo')).toEqual({ options: ['Berlin', 'Lisbon', 'Oslo', 'Pune'], chosen: 'Oslo' });
  });
});
