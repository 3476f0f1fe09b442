// The seat map stays where the buyer aims: no notice above it changes its place while
// seats are chosen (a seat's screen position taken before the first click still picks
// that seat after it), and at phone width every seat is a tap target of at least
// 24 × 24 CSS px with the row letters in view at either end of a sideways scroll, and
// zooming (a button, two fingers) keeps the seat or the point between the fingers in place.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, PHONE, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { holdSeats } from './buyerSession.js';

const SESSION = 'boxoffice.session';
const sessionOf = (b: Buyer) => JSON.stringify({ user_id: b.userId, token: b.token, role: 'user' });

/** A phone: 390 × 844 CSS px at three device pixels each, touch input, mobile viewport rules. */
async function openPhone(browser: Browser, baseUrl: string, buyer: Buyer): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: PHONE, deviceScaleFactor: 3, hasTouch: true, isMobile: true, locale: 'en-GB', timezoneId: 'UTC' });
  await context.addInitScript(([key, value]) => localStorage.setItem(key!, value!), [SESSION, sessionOf(buyer)]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return { context, page, errors };
}

/** The centre of a seat on screen, in CSS px of the viewport. */
async function centreOf(page: Page, id: string): Promise<{ x: number; y: number }> {
  const box = await page.locator(`[data-seat="${id}"]`).boundingBox();
  if (!box) throw new Error(`seat ${id} is not drawn`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

const selectedSeats = (page: Page) => page.locator('[data-seat][aria-checked="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-seat')));
const mapTop = (page: Page) => page.locator('.seatmap').evaluate((el) => el.getBoundingClientRect().top + window.scrollY);

describeInBrowser('web app: the seat map keeps still and is big enough to tap', () => {
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
    await page.getByRole('status').getByText('Row F, seat 7 added.').waitFor({ state: 'attached' });
    await page.mouse.click(f8.x, f8.y);
    await expect.poll(() => selectedSeats(page), { timeout: 5000 }).toEqual(['F7', 'F8']);
    await page.getByRole('status').getByText('Row F, seat 8 added.').waitFor({ state: 'attached' });
    expect(await mapTop(page)).toBe(top);

    // A chosen seat that another buyer takes leaves the selection with a notice: the map stays put.
    const c3 = await centreOf(page, 'C3');
    await page.mouse.click(c3.x, c3.y);
    await page.getByRole('status').getByText('Row C, seat 3 added.').waitFor({ state: 'attached' });
    await holdSeats(t, buyers[1]!, showId, ['C3']);
    await page.getByRole('alert').getByText('Row C, seat 3 was just taken by someone else.').waitFor();
    expect(await mapTop(page)).toBe(top);
    expect(await centreOf(page, 'F8')).toEqual(f8);

    // A click on a seat someone else holds says so: the map stays put, and the next click lands.
    await holdSeats(t, buyers[1]!, showId, ['B5']);
    await page.locator('[data-seat="B5"][data-status="held"]').waitFor();
    const b5 = await centreOf(page, 'B5');
    await page.mouse.click(b5.x, b5.y);
    await page.getByRole('alert').getByText('Row B, seat 5 is held by someone else.').waitFor();
    expect(await mapTop(page)).toBe(top);
    const b6 = await centreOf(page, 'B6');
    expect(b6.y).toBe(b5.y);
    await page.mouse.click(b6.x, b6.y);
    await page.getByRole('status').getByText('Row B, seat 6 added.').waitFor({ state: 'attached' });
    expect(await selectedSeats(page)).toEqual(['B6', 'F7', 'F8']);
    expect(await centreOf(page, 'F7')).toEqual(f7);

    await screenshotBoth(page, 'seat-map-notice');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('gives every seat a hit box of at least 24 × 24 px at phone width, takes a tap 6 px off centre, and keeps row letters in view', async () => {
    const { showId } = await createShow(t, { rows: 8, seatsPerRow: 30, per_user_limit: 4 });
    const { page, errors, context } = await openPhone(browser, t.baseUrl, buyers[0]!);
    await page.goto(`/shows/${showId}`);
    await page.locator('[data-seat="H30"]').waitFor();

    // What receives a click at each seat's centre: it belongs to that seat, and it is big enough.
    const hits = await page.evaluate(() => [...document.querySelectorAll<SVGGElement>('[data-seat]')].map((seat) => {
      seat.scrollIntoView({ block: 'center', inline: 'center' });
      const r = seat.getBoundingClientRect();
      const target = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      const hit = target?.getBoundingClientRect();
      return { seat: seat.getAttribute('data-seat'), same: target?.closest('[data-seat]') === seat, width: hit?.width ?? 0, height: hit?.height ?? 0 };
    }));
    expect(hits).toHaveLength(240);
    expect(hits.filter((h) => !h.same)).toEqual([]);
    const smallest = { width: Math.min(...hits.map((h) => h.width)), height: Math.min(...hits.map((h) => h.height)) };
    expect(smallest.width).toBeGreaterThanOrEqual(24);
    expect(smallest.height).toBeGreaterThanOrEqual(24);

    // A tap 6 px off a seat's centre, either way, takes that seat.
    await page.locator('[data-seat="D15"]').evaluate((el) => el.scrollIntoView({ block: 'center', inline: 'center' }));
    const d15 = await centreOf(page, 'D15');
    await page.touchscreen.tap(d15.x + 6, d15.y);
    const d16 = await centreOf(page, 'D16');
    await page.touchscreen.tap(d16.x - 6, d16.y + 6);
    await expect.poll(() => selectedSeats(page)).toEqual(['D15', 'D16']);

    // Row A's letters are wholly on screen with the map scrolled to either end.
    const scroller = page.locator('.seatmap-scroll');
    const rowALettersInView = () => page.evaluate(() => {
      const frame = document.querySelector('.seatmap-scroll')!;
      frame.scrollIntoView({ block: 'nearest' });
      const box = frame.getBoundingClientRect();
      const [left, right] = [Math.max(0, box.left), Math.min(window.innerWidth, box.right)];
      const [top, bottom] = [Math.max(0, box.top), Math.min(window.innerHeight, box.bottom)];
      const letters = [...document.querySelectorAll('.seatmap .seatmap-row-label')].filter((el) => el.textContent === 'A');
      return letters.length > 0 && letters.every((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.left >= left && r.right <= right && r.top >= top && r.bottom <= bottom;
      });
    });
    expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await scroller.evaluate((el) => { el.scrollLeft = 0; el.scrollTop = 0; });
    expect(await rowALettersInView()).toBe(true);
    await scroller.evaluate((el) => { el.scrollLeft = el.scrollWidth; el.scrollTop = 0; });
    expect(await rowALettersInView()).toBe(true);

    // Zooming in keeps the tapped seat where the finger left it, and the letters in view.
    await page.locator('[data-seat="D16"]').evaluate((el) => el.scrollIntoView({ block: 'center', inline: 'center' }));
    const zoomIn = page.getByRole('button', { name: 'Zoom in' });
    await zoomIn.scrollIntoViewIfNeeded();
    const before = await centreOf(page, 'D16');
    const cellWidth = () => page.locator('[data-seat="D16"]').evaluate((el) => el.getBoundingClientRect().width);
    const unzoomed = await cellWidth();
    await zoomIn.tap();
    await expect.poll(async () => (await cellWidth()) / unzoomed).toBeCloseTo(1.5, 2);
    const after = await centreOf(page, 'D16');
    expect(Math.abs(after.x - before.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(after.y - before.y)).toBeLessThanOrEqual(2);
    await scroller.evaluate((el) => { el.scrollLeft = 0; el.scrollTop = 0; });
    expect(await rowALettersInView()).toBe(true);

    // Two fingers spread around seat D20 zoom the map, not the page, with D20 kept between them.
    await page.locator('[data-seat="D20"]').evaluate((el) => el.scrollIntoView({ block: 'center', inline: 'center' }));
    const mid = await centreOf(page, 'D20');
    const sizeBefore = (await page.locator('[data-seat="D20"]').boundingBox())!.width;
    const cdp = await context.newCDPSession(page);
    const fingers = (d: number) => [{ x: mid.x - d, y: mid.y }, { x: mid.x + d, y: mid.y }];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(20) });
    for (const d of [24, 28, 32, 36]) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(d) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await cdp.detach();
    const pinched = await centreOf(page, 'D20');
    expect((await page.locator('[data-seat="D20"]').boundingBox())!.width / sizeBefore).toBeCloseTo(1.5, 1);
    expect(Math.abs(pinched.x - mid.x)).toBeLessThanOrEqual(3);
    expect(Math.abs(pinched.y - mid.y)).toBeLessThanOrEqual(3);
    expect(await page.evaluate(() => window.visualViewport?.scale)).toBe(1);
    await scroller.evaluate((el) => { el.scrollLeft = el.scrollWidth; el.scrollTop = 0; });
    expect(await rowALettersInView()).toBe(true);

    await screenshotBoth(page, 'seat-map-phone');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
