// Best available on the show page, in a browser: the buyer asks for seats together
// (how many, which section, up to what price), the service chooses and holds them, and
// the page shows them on the map as the buyer's with the way to checkout; a refusal
// says what to try instead. Axe-clean.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { createLayoutShow } from '../support/bestAvailable.js';

async function signedIn(browser: Browser, baseUrl: string, buyer: Buyer): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const opened = await openPage(browser, baseUrl);
  const session = JSON.stringify({ user_id: buyer.userId, token: buyer.token, role: 'user' });
  await opened.context.addInitScript((s) => localStorage.setItem('boxoffice.session', s), session);
  return opened;
}

describeInBrowser('web app: best available beside the seat map', () => {
  let t: TestService;
  let browser: Browser;
  let buyers: Buyer[];
  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    buyers = await registerBuyers(t, 2);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('cinema: 2 seats together are chosen, held, and shown on the map as the buyer\'s', async () => {
    const rows = 'ABCDE'.split('').map((row) => ({ row, seats: 10, tier: row >= 'D' ? 'premium' : 'standard' }));
    const { showId } = await createLayoutShow(t, rows, { priceTiers: { standard: 1000, premium: 1500 }, per_user_limit: 4 });
    // Someone already has the middle of row A (A5, A6): row A is still the best row, and
    // in it A3–A4 is nearest the centre among the pairs that leave no seat alone.
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A5', 'A6'] }, buyers[1]!.token)).status).toBe(201);
    const one = await signedIn(browser, t.baseUrl, buyers[0]!);
    await one.page.goto(`/shows/${showId}`);
    const panel = one.page.getByRole('region', { name: 'Best available' });
    await panel.getByLabel('Seats together').selectOption('2');
    await panel.getByRole('button', { name: 'Find the best seats' }).click();
    await panel.getByRole('status').getByText('Held for you: Row A, seat 3; Row A, seat 4, €20.00, shown on the map.').waitFor();
    for (const n of [3, 4]) await one.page.getByRole('checkbox', { name: `Row A, seat ${n}, €10.00, held by you` }).waitFor();
    await expect(one.page.getByRole('checkbox', { name: /^Row A, seat 2,/ }).getAttribute('aria-label')).resolves.toBe('Row A, seat 2, €10.00, available');
    expect(await seriousViolations(one.page)).toEqual([]);
    await screenshotBoth(one.page, 'show-best-available');
    await panel.getByRole('link', { name: 'Go to checkout' }).click();
    await one.page.waitForURL(/\/holds\/[^/]+$/);
    expect(one.errors).toEqual([]);
    await one.context.close();
  });

  it('stadium: "any section" finds the best section and opens it; a request nothing fits is refused with what to try', async () => {
    const rows = [
      ...['A', 'B'].map((row) => ({ section: '101', row, seats: 4, tier: 'gold' })),
      ...['A', 'B'].map((row) => ({ section: '102', row, seats: 6, tier: 'silver' })),
    ];
    const { showId } = await createLayoutShow(t, rows, { priceTiers: { gold: 5000, silver: 2000 }, per_user_limit: 4 });
    const one = await signedIn(browser, t.baseUrl, buyers[0]!);
    await one.page.goto(`/shows/${showId}?section=101`);
    const panel = one.page.getByRole('region', { name: 'Best available' });
    await panel.getByLabel('Seats together').selectOption('2');
    await panel.getByLabel('Section').selectOption({ label: 'Any section' });
    await panel.getByLabel('Price per seat').selectOption({ label: 'Up to €20.00' });
    await panel.getByRole('button', { name: 'Find the best seats' }).click();
    // Only section 102 is at €20: the page moves there and shows the two seats as the buyer's.
    await one.page.waitForURL(/section=102/);
    await one.page.getByRole('checkbox', { name: 'Section 102, row A, seat 3, €20.00, held by you' }).waitFor();
    await one.page.getByRole('checkbox', { name: 'Section 102, row A, seat 4, €20.00, held by you' }).waitFor();

    // Two together in section 101 at most €20: there are none.
    await panel.getByLabel('Seats together').selectOption('2');
    await panel.getByLabel('Section').selectOption('101');
    await panel.getByLabel('Price per seat').selectOption({ label: 'Up to €20.00' });
    await panel.getByRole('button', { name: 'Find the best seats' }).click();
    await one.page.getByRole('alert').getByText('There are not that many seats together left for what you asked.', { exact: false }).waitFor();
    expect(await seriousViolations(one.page)).toEqual([]);
    // The refusal's 409, as the browser logs any failed request; nothing else.
    expect(one.errors.filter((e) => !e.includes('status of 409 (Conflict)'))).toEqual([]);
    await one.context.close();
  });
});
