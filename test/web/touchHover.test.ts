// The seat's hover ring follows a pointer that can hover, and only that: on a touch screen
// the ring once stayed on the last seat tapped (a tap leaves the page "hovering" there).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { launchBrowser, openPage, PHONE, describeInBrowser } from '../support/browser.js';

describeInBrowser('web app: hover rings on touch screens', () => {
  let t: TestService;
  let browser: Browser;
  let showId: string;
  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    browser = await launchBrowser();
    ({ showId } = await createShow(t, { rows: 4, seatsPerRow: 8 }));
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const ring = `[data-seat="B3"] .seat-ring`;

  it('leaves no ring on a tapped seat of a touch screen', async () => {
    const context = await browser.newContext({ baseURL: t.baseUrl, viewport: PHONE, hasTouch: true, isMobile: true, locale: 'en-GB', timezoneId: 'UTC' });
    const page = await context.newPage();
    await page.goto(`/shows/${showId}`);
    await page.locator('[data-seat="B3"]').waitFor();
    expect(await page.evaluate(() => matchMedia('(hover: hover)').matches)).toBe(false);
    await page.locator('[data-seat="B3"]').tap();
    await page.getByText('Row B, seat 3 added.').waitFor({ state: 'attached' });
    await page.locator('[data-seat="B3"]').tap();
    await page.getByText('Row B, seat 3 removed.').waitFor({ state: 'attached' });
    // Not focused by the keyboard, not hovered by a mouse: no ring.
    expect(await page.locator(ring).evaluate((el) => getComputedStyle(el).stroke)).toBe('none');
    await context.close();
  });

  it('still rings the seat under a mouse', async () => {
    const { page, context, errors } = await openPage(browser, t.baseUrl);
    await page.goto(`/shows/${showId}`);
    await page.locator('[data-seat="B3"]').waitFor();
    expect(await page.evaluate(() => matchMedia('(hover: hover)').matches)).toBe(true);
    await page.locator('[data-seat="B3"]').hover();
    await expect.poll(() => page.locator(ring).evaluate((el) => getComputedStyle(el).stroke)).not.toBe('none');
    expect(errors).toEqual([]);
    await context.close();
  });
});
