// Two operator-page details of issue #28: a new show's currency starts as the venue's last
// show's, else the one of its country (a hall in Pune is priced in rupees, not euros);
// and a page's success message reaches the next page without travelling in its address.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';

describeInBrowser('web app: operator page defaults', () => {
  let t: TestService;
  let browser: Browser;
  let adminId: string;

  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    adminId = (await t.http.post('/v1/sessions', ADMIN)).body.user_id as string;
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function operatorPage(): Promise<{ page: Page; errors: string[]; context: BrowserContext }> {
    const opened = await openPage(browser, t.baseUrl);
    const s = JSON.stringify({ user_id: adminId, token: t.adminToken, role: 'admin' });
    await opened.context.addInitScript((session: string) => localStorage.setItem('boxoffice.session', session), s);
    return opened;
  }

  async function venueWithHall(name: string, city: string, timezone: string): Promise<{ venueId: string; hallId: string }> {
    const venue = await t.http.post('/v1/admin/venues', { name, city, timezone }, t.adminToken);
    expect(venue.status).toBe(201);
    const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: `${name} hall`, layout: { rows: [{ row: 'A', seats: 4, tier: 'standard' }] } }, t.adminToken);
    expect(hall.status).toBe(201);
    return { venueId: venue.body.id as string, hallId: hall.body.id as string };
  }

  it('starts a new show in the currency of the venue\'s country, or of its last show, and leaves it to the operator when neither says', async () => {
    await t.http.post('/v1/admin/events', { title: 'Monsoon Ragas', kind: 'concert' }, t.adminToken);
    await venueWithHall('Ganesh Kala', 'Pune', 'Asia/Kolkata');
    const tbilisi = await venueWithHall('Rustaveli', 'Tbilisi', 'Asia/Tbilisi');
    await venueWithHall('Nowhere', 'Greenwich', 'UTC');
    // Tbilisi's zone is not in the table: its last show says USD.
    const event = (await t.http.get('/v1/admin/events', t.adminToken)).body.events[0];
    const earlier = await t.http.post('/v1/admin/shows', { event_id: event.id, hall_id: tbilisi.hallId, starts_at: new Date(Date.now() + 86_400_000).toISOString(), currency: 'USD', price_tiers: { standard: 2000 } }, t.adminToken);
    expect(earlier.status, earlier.text).toBe(201);

    const { page, errors, context } = await operatorPage();
    await page.goto('/admin/shows/new');
    await page.getByRole('heading', { name: 'New show' }).waitFor();
    const currency = page.getByLabel('Currency');
    const hall = page.getByLabel('Hall', { exact: true });
    await hall.selectOption({ label: 'Ganesh Kala hall — Ganesh Kala (4 seats)' });
    await expect.poll(() => currency.inputValue()).toBe('INR');
    await page.getByRole('group', { name: 'Prices by tier (INR)' }).waitFor();
    await hall.selectOption({ label: 'Rustaveli hall — Rustaveli (4 seats)' });
    await expect.poll(() => currency.inputValue()).toBe('USD');
    await hall.selectOption({ label: 'Nowhere hall — Nowhere (4 seats)' });
    await expect.poll(() => currency.inputValue()).toBe('');
    // Typed by the operator, it stays whatever hall is chosen next.
    await currency.fill('GEL');
    await hall.selectOption({ label: 'Ganesh Kala hall — Ganesh Kala (4 seats)' });
    await page.getByLabel('Starts at (Asia/Kolkata time)').waitFor();
    expect(await currency.inputValue()).toBe('GEL');
    await screenshotBoth(page, 'admin-show-new-currency');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('announces a created hall on the operators page with nothing in the address', async () => {
    const { page, errors, context } = await operatorPage();
    await page.goto('/admin/halls/new');
    await page.getByRole('heading', { name: 'New hall' }).waitFor();
    await page.getByLabel('Hall name').fill('Studio');
    await page.getByLabel('Or paste layout JSON').fill('{"rows": [{"row": "A", "seats": 3, "tier": "standard"}]}');
    await page.getByRole('button', { name: 'Use pasted layout' }).click();
    await page.getByRole('button', { name: 'Create hall' }).click();
    await page.getByRole('status').getByText('Hall Studio created with 3 seats.').waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/admin');
    expect(url.search).toBe('');
    // Shown once: a reload does not announce it again.
    await page.reload();
    await page.getByRole('heading', { name: 'Operators' }).waitFor();
    await page.getByRole('heading', { name: 'Halls' }).waitFor();
    expect(await page.getByText('Hall Studio created with 3 seats.').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
