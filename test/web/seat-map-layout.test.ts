// The seat map stays where the buyer aims: no notice above it changes its place while
// seats are chosen (a seat's screen position taken before the first click still picks
// that seat after it).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { holdSeats } from './buyerSession.js';

const SESSION = 'boxoffice.session';
const sessionOf = (b: Buyer) => JSON.stringify({ user_id: b.userId, token: b.token, role: 'user' });

/** The centre of a seat on screen, in CSS px of the viewport. */
async function centreOf(page: Page, id: string): Promise<{ x: number; y: number }> {
  const box = await page.locator(`[data-seat="${id}"]`).boundingBox();
  if (!box) throw new Error(`seat ${id} is not drawn`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

const selectedSeats = (page: Page) => page.locator('[data-seat][aria-checked="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-seat')));
const mapTop = (page: Page) => page.locator('.seatmap').evaluate((el) => el.getBoundingClientRect().top + window.scrollY);

describeInBrowser('web app: the seat map keeps still', () => {
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

  it('picks two neighbouring seats clicked where they were before the first click; a "just taken" notice does not move the map', async () => {
    const { showId } = await createShow(t, { rows: 8, seatsPerRow: 12, per_user_limit: 4 });
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await context.addInitScript(([key, value]) => localStorage.setItem(key!, value!), [SESSION, sessionOf(buyers[0]!)]);
    await page.goto(`/shows/${showId}`);
    await page.locator('[data-seat="F8"]').waitFor();
    await page.locator('.live-state.live').waitFor();
    const top = await mapTop(page);
    const f7 = await centreOf(page, 'F7');
    const f8 = await centreOf(page, 'F8');

    await page.mouse.click(f7.x, f7.y);
    await page.getByRole('status').getByText('Seat F7 added.').waitFor({ state: 'attached' });
    await page.mouse.click(f8.x, f8.y);
    await expect.poll(() => selectedSeats(page), { timeout: 5000 }).toEqual(['F7', 'F8']);
    await page.getByRole('status').getByText('Seat F8 added.').waitFor({ state: 'attached' });
    expect(await mapTop(page)).toBe(top);

    // A chosen seat that another buyer takes leaves the selection with a notice: the map stays put.
    const c3 = await centreOf(page, 'C3');
    await page.mouse.click(c3.x, c3.y);
    await page.getByRole('status').getByText('Seat C3 added.').waitFor({ state: 'attached' });
    await holdSeats(t, buyers[1]!, showId, ['C3']);
    await page.getByRole('alert').getByText('Seat C3 was just taken by someone else.').waitFor();
    expect(await mapTop(page)).toBe(top);
    expect(await centreOf(page, 'F8')).toEqual(f8);

    // A click on a seat someone else holds says so: the map stays put, and the next click lands.
    await holdSeats(t, buyers[1]!, showId, ['B5']);
    await page.locator('[data-seat="B5"][data-status="held"]').waitFor();
    const b5 = await centreOf(page, 'B5');
    await page.mouse.click(b5.x, b5.y);
    await page.getByRole('alert').getByText('Seat B5 is held by someone else.').waitFor();
    expect(await mapTop(page)).toBe(top);
    const b6 = await centreOf(page, 'B6');
    expect(b6.y).toBe(b5.y);
    await page.mouse.click(b6.x, b6.y);
    await page.getByRole('status').getByText('Seat B6 added.').waitFor({ state: 'attached' });
    expect(await selectedSeats(page)).toEqual(['B6', 'F7', 'F8']);
    expect(await centreOf(page, 'F7')).toEqual(f7);

    await screenshotBoth(page, 'seat-map-notice');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
