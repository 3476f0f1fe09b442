// The show page in a browser: the live seat map (two buyers see each other's holds within
// 2 s), a lost hold race (only the lost seat leaves the selection), a stadium's sections,
// the keyboard, and the way from an event to its shows.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { joinAndAdmit, roomConfig } from '../waiting-room/helpers.js';

interface LayoutRow { row: string; seats: number; tier: string; section?: string; accessible?: number[] }

/** A show in a hall of the given rows (admin API), priced per tier in EUR cents. */
async function showWith(t: TestService, rows: LayoutRow[], o: { kind?: string; prices?: Record<string, number>; waiting_room?: boolean; sale_opens_at?: string } = {}): Promise<string> {
  const token = t.adminToken;
  const venue = await t.http.post('/v1/admin/venues', { name: 'Salle Rameau', city: 'Lyon', timezone: 'Europe/Paris' }, token);
  const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'Main hall', layout: { rows } }, token);
  expect(hall.status).toBe(201);
  const event = await t.http.post('/v1/admin/events', { title: o.kind === 'concert' ? 'Stadium Night' : 'Seat Map Film', kind: o.kind ?? 'film', duration_minutes: 100 }, token);
  const show = await t.http.post('/v1/admin/shows', {
    event_id: event.body.id, hall_id: hall.body.id, starts_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: o.prices ?? { standard: 1000, premium: 1500 }, per_user_limit: 4, waiting_room: o.waiting_room ?? false,
    ...(o.sale_opens_at ? { sale_opens_at: o.sale_opens_at } : {}),
  }, token);
  expect(show.status).toBe(201);
  return show.body.id as string;
}

/** Rows A–E of ten seats; D–E premium; wheelchair places A1, A2. */
const cinemaRows = (): LayoutRow[] => 'ABCDE'.split('').map((row) => ({ row, seats: 10, tier: row >= 'D' ? 'premium' : 'standard', ...(row === 'A' ? { accessible: [1, 2] } : {}) }));

/** A browser context where `buyer` is signed in (the session the web app keeps in localStorage). */
async function signedIn(browser: Browser, baseUrl: string, buyer: Buyer): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const opened = await openPage(browser, baseUrl);
  const session = JSON.stringify({ user_id: buyer.userId, token: buyer.token, role: 'user' });
  await opened.context.addInitScript((s) => localStorage.setItem('boxoffice.session', s), session);
  return opened;
}

const seat = (page: Page, name: string) => page.getByRole('checkbox', { name: new RegExp(`^${name},`) });

describeInBrowser('web app: show page and live seat map', () => {
  let t: TestService;
  let browser: Browser;
  let buyers: Buyer[];
  beforeAll(async () => {
    // The waiting room admits at once (fast ticks, a high rate): the show page's part is under test.
    t = await startTestService({ pglite: true, config: roomConfig(null) });
    buyers = await registerBuyers(t, 3);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows a hold by one buyer to another within 2 s; clicking that seat says why it cannot be had', async () => {
    const showId = await showWith(t, cinemaRows());
    const one = await signedIn(browser, t.baseUrl, buyers[0]!);
    const two = await signedIn(browser, t.baseUrl, buyers[1]!);
    await Promise.all([one.page.goto(`/shows/${showId}`), two.page.goto(`/shows/${showId}`)]);
    await seat(two.page, 'Row C, seat 5').waitFor();
    await expect(seat(two.page, 'Row C, seat 5').getAttribute('aria-label')).resolves.toBe('Row C, seat 5, €10.00, available');

    await seat(one.page, 'Row C, seat 5').click();
    await expect(seat(one.page, 'Row C, seat 5').getAttribute('aria-checked')).resolves.toBe('true');
    await one.page.getByRole('button', { name: 'Hold seats' }).click();
    await one.page.waitForURL(/\/holds\/[^/]+$/);
    const heldAt = Date.now();

    const taken = two.page.getByRole('checkbox', { name: 'Row C, seat 5, €10.00, held by someone else' });
    await taken.waitFor({ timeout: 2000 });
    expect(Date.now() - heldAt).toBeLessThan(2000);
    await expect(taken.getAttribute('data-status')).resolves.toBe('held');
    // aria-disabled (it cannot be picked), yet a click on it answers why.
    await taken.click({ force: true });
    await two.page.getByRole('alert').getByText('Row C, seat 5 is held by someone else.').waitFor();
    await expect(taken.getAttribute('aria-checked')).resolves.toBe('false');

    // Buyer 1, back on the show page, sees the seat as theirs and the way to checkout.
    await one.page.goBack();
    await one.page.getByRole('checkbox', { name: 'Row C, seat 5, €10.00, held by you' }).waitFor();
    await one.page.getByRole('list', { name: 'Your holds on this show' }).getByText('You hold Row C, seat 5 until').waitFor();
    await screenshotBoth(one.page, 'show-own-hold');
    expect(await seriousViolations(one.page)).toEqual([]);
    await one.page.getByRole('link', { name: 'Go to checkout' }).click();
    await one.page.waitForURL(/\/holds\/[^/]+$/);

    await seat(two.page, 'Row D, seat 3').click();
    await seat(two.page, 'Row A, seat 1').click();
    await expect(seat(two.page, 'Row A, seat 1').getAttribute('aria-label')).resolves.toBe('Row A, seat 1, €10.00, accessible seat, selected');
    await two.page.getByText('€25.00').waitFor();
    await screenshotBoth(two.page, 'show-seatmap');
    expect(await seriousViolations(two.page)).toEqual([]);
    expect(one.errors).toEqual([]);
    expect(two.errors).toEqual([]);
    await one.context.close();
    await two.context.close();
  });

  it('loses a race for one seat: names it, and keeps the other seat selected', async () => {
    const showId = await showWith(t, cinemaRows());
    const two = await signedIn(browser, t.baseUrl, buyers[1]!);
    // Buyer 2's map does not move (its stream gives a snapshot and stays quiet), so the
    // hold request is what finds out, as when the click beats the map's update.
    const snapshot = (await t.http.get(`/v1/shows/${showId}/seats`)).body as { version: number };
    await two.page.route(/\/seats\/stream/, (route) => route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      body: `retry: 3600000\n\nid: ${snapshot.version}\nevent: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`,
    }));
    await two.page.goto(`/shows/${showId}`);
    await seat(two.page, 'Row B, seat 5').click();
    await seat(two.page, 'Row B, seat 6').click();
    const lost = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['B6'] }, buyers[0]!.token);
    expect(lost.status).toBe(201);

    await two.page.getByRole('button', { name: 'Hold seats' }).click();
    const alert = two.page.getByRole('alert');
    await alert.getByText('Row B, seat 6 was just taken by someone else.', { exact: false }).waitFor();
    expect(await alert.textContent()).toContain('Your other seats are still selected');
    expect(two.page.url()).toMatch(new RegExp(`/shows/${showId}$`));
    await expect(seat(two.page, 'Row B, seat 5').getAttribute('aria-checked')).resolves.toBe('true');
    await expect(seat(two.page, 'Row B, seat 6').getAttribute('aria-label')).resolves.toBe('Row B, seat 6, €10.00, held by someone else');
    const yours = two.page.getByRole('region', { name: 'Your seats' });
    expect(await yours.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Row B, seat 5')]);

    await screenshotBoth(two.page, 'show-lost-race');
    expect(await seriousViolations(two.page)).toEqual([]);
    // The refused hold itself (409) is the only thing the console reports.
    expect(two.errors.filter((e) => !e.includes('status of 409 (Conflict)'))).toEqual([]);

    // The seat it kept is still to be had: holding it now works.
    await two.page.getByRole('button', { name: 'Hold seats' }).click();
    await two.page.waitForURL(/\/holds\/[^/]+$/);
    await two.context.close();
  });

  it('opens a stadium by sections, then one section\'s seats, and holds one', async () => {
    const rows: LayoutRow[] = [];
    for (const section of ['101', '102', '103']) {
      for (const row of 'ABCDE') rows.push({ row, seats: 10, tier: section === '101' ? 'floor' : 'stand', section, ...(row === 'A' ? { accessible: [1, 2] } : {}) });
    }
    const showId = await showWith(t, rows, { kind: 'concert', prices: { floor: 9500, stand: 6500 } });
    const taken = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['102-A3', '102-A4'] }, buyers[0]!.token);
    expect(taken.status).toBe(201);
    const buyer = await signedIn(browser, t.baseUrl, buyers[2]!);
    await buyer.page.goto(`/shows/${showId}`);
    await buyer.page.getByRole('heading', { name: 'Choose a section' }).waitFor();
    const section102 = buyer.page.getByRole('link', { name: 'Section 102, 48 free of 50 seats, €65.00' });
    await expect.poll(() => buyer.page.getByRole('link', { name: /^Section 10/ }).count()).toBe(3);
    await buyer.page.getByRole('link', { name: 'Section 101, 50 free of 50 seats, €95.00' }).waitFor();
    await screenshotBoth(buyer.page, 'show-sections');
    expect(await seriousViolations(buyer.page)).toEqual([]);

    await section102.click();
    await buyer.page.getByRole('heading', { name: 'Section 102' }).waitFor();
    await seat(buyer.page, 'Section 102, row C, seat 4').waitFor();
    // Only that section's seats are drawn.
    await expect.poll(() => buyer.page.getByRole('checkbox').count()).toBe(50);
    await expect(seat(buyer.page, 'Section 102, row A, seat 3').getAttribute('data-status')).resolves.toBe('held');
    await seat(buyer.page, 'Section 102, row C, seat 4').click();
    await screenshotBoth(buyer.page, 'show-section-map');
    expect(await seriousViolations(buyer.page)).toEqual([]);

    await buyer.page.getByRole('button', { name: 'Hold seats' }).click();
    await buyer.page.waitForURL(/\/holds\/[^/]+$/);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('explains a refused hold: the per-buyer limit, a sale not yet open, a busy box office', async () => {
    const showId = await showWith(t, cinemaRows());
    const buyer = await signedIn(browser, t.baseUrl, buyers[0]!);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['E1', 'E2', 'E3'] }, buyers[0]!.token)).status).toBe(201);
    await buyer.page.goto(`/shows/${showId}`);
    await seat(buyer.page, 'Row A, seat 5').click();
    await seat(buyer.page, 'Row A, seat 6').click();
    await buyer.page.getByRole('button', { name: 'Hold seats' }).click();
    await buyer.page.getByRole('alert').getByText('You can have at most 4 seats for this show, counting seats you already hold or booked.').waitFor();
    await expect(seat(buyer.page, 'Row A, seat 6').getAttribute('aria-checked')).resolves.toBe('true');

    // The service sheds load (503 OVERLOADED, Retry-After: 7): this answer is made up here,
    // as the test service never sheds.
    await buyer.page.route(/\/holds$/, (route) => route.fulfill({
      status: 503,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '7' },
      body: JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'OVERLOADED', detail: 'busy' }),
    }));
    await buyer.page.getByRole('button', { name: 'Hold seats' }).click();
    await buyer.page.getByRole('alert').getByText('The box office is busy right now. Please try again in 7 s.').waitFor();
    await buyer.page.unroute(/\/holds$/);
    expect(buyer.errors.filter((e) => !/status of (409|503)/.test(e))).toEqual([]);

    const later = await showWith(t, cinemaRows(), { sale_opens_at: new Date(Date.now() + 86_400_000).toISOString() });
    // A browser whose clock runs ahead of the service's opens the map early: the service says no.
    await buyer.page.clock.setSystemTime(Date.now() + 2 * 86_400_000);
    await buyer.page.goto(`/shows/${later}`);
    await seat(buyer.page, 'Row A, seat 5').click();
    await buyer.page.getByRole('button', { name: 'Hold seats' }).click();
    await buyer.page.getByRole('alert').getByText(/^Sales for this show have not opened yet: they open /).waitFor();
    await buyer.context.close();
  });

  it('is used with the keyboard: Tab enters the map, arrows move, Enter picks', async () => {
    const showId = await showWith(t, cinemaRows());
    const buyer = await signedIn(browser, t.baseUrl, buyers[2]!);
    await buyer.page.goto(`/shows/${showId}`);
    await seat(buyer.page, 'Row A, seat 1').waitFor();
    const focused = () => buyer.page.evaluate(() => document.activeElement?.getAttribute('data-seat') ?? null);
    const focusOn = (id: string) => buyer.page.waitForFunction((want) => document.activeElement?.getAttribute('data-seat') === want, id, { timeout: 2000 });
    let tabs = 0;
    while ((await focused()) === null && tabs++ < 30) await buyer.page.keyboard.press('Tab');
    expect(await focused()).toBe('A1');
    await buyer.page.keyboard.press('ArrowRight');
    await buyer.page.keyboard.press('ArrowRight');
    await focusOn('A3');
    await buyer.page.keyboard.press('ArrowDown');
    await focusOn('B3');
    // The focused seat shows a ring.
    const ring = await buyer.page.evaluate(() => getComputedStyle(document.activeElement!.querySelector('.seat-ring')!).stroke);
    expect(ring).not.toBe('none');
    await screenshotBoth(buyer.page, 'show-keyboard-focus');
    await buyer.page.keyboard.press('Enter');
    await expect(seat(buyer.page, 'Row B, seat 3').getAttribute('aria-checked')).resolves.toBe('true');
    await buyer.page.keyboard.press('End');
    await focusOn('B10');
    await buyer.page.keyboard.press(' ');
    await expect(seat(buyer.page, 'Row B, seat 10').getAttribute('aria-checked')).resolves.toBe('true');
    await buyer.page.keyboard.press(' ');
    await expect(seat(buyer.page, 'Row B, seat 10').getAttribute('aria-checked')).resolves.toBe('false');
    // Tab leaves the map in one step (one seat is tabbable), on to the selection.
    await buyer.page.keyboard.press('Tab');
    expect(await focused()).toBeNull();
    expect(await buyer.page.evaluate(() => document.querySelectorAll('[data-seat][tabindex="0"]').length)).toBe(1);

    // Leaving the page (within the app, no reload) closes its live stream.
    const viewers = async (want: number) => {
      const end = Date.now() + 2000;
      while (t.service.ctx.seatStreams.viewerCount !== want && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      return t.service.ctx.seatStreams.viewerCount;
    };
    expect(await viewers(1)).toBe(1);
    await buyer.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'What\'s on' }).click();
    await buyer.page.getByRole('heading', { name: 'What\'s on' }).waitFor();
    expect(await viewers(0)).toBe(0);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('goes from an event to its shows to the seat map; holding asks a signed-out buyer to sign in', async () => {
    const showId = await showWith(t, cinemaRows());
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    const eventId = (await t.http.get(`/v1/shows/${showId}`)).body.event.id as string;
    // The same event in Porto too, the next day.
    const porto = await t.http.post('/v1/admin/venues', { name: 'Cinema Batalha', city: 'Porto', timezone: 'Europe/Lisbon' }, t.adminToken);
    const hall = await t.http.post('/v1/admin/halls', { venue_id: porto.body.id, name: 'Sala 1', layout: { rows: cinemaRows() } }, t.adminToken);
    const other = await t.http.post('/v1/admin/shows', {
      event_id: eventId, hall_id: hall.body.id, // Three days after the Lyon show: a different day in both venues' zones, whatever the hour now.
      starts_at: new Date(Date.now() + 6 * 86_400_000).toISOString(), currency: 'EUR', price_tiers: { standard: 800, premium: 1200 },
    }, t.adminToken);
    expect(other.status).toBe(201);
    await page.goto(`/events/${eventId}`);
    await page.getByRole('heading', { name: 'Seat Map Film', level: 1 }).waitFor();
    await page.getByText('Salle Rameau, Lyon').first().waitFor();
    await page.getByText('from €8.00').waitFor();
    // One heading per day.
    await expect.poll(() => page.getByRole('heading', { level: 2 }).count()).toBe(2);
    await page.getByLabel('City').selectOption('Lyon');
    await page.getByText('from €8.00').waitFor({ state: 'detached' });
    await screenshotBoth(page, 'event-shows');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: /Salle Rameau/ }).click();
    await page.waitForURL(new RegExp(`/shows/${showId}$`));
    await seat(page, 'Row E, seat 2').click();
    await page.getByRole('button', { name: 'Hold seats' }).click();
    await page.waitForURL((u) => u.pathname === '/signin' && u.searchParams.get('next') === `/shows/${showId}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends a buyer without an admission to a waiting-room show\'s queue; with one, holds with it', async () => {
    const showId = await showWith(t, cinemaRows(), { waiting_room: true });
    const { page, context } = await openPage(browser, t.baseUrl);
    await page.goto(`/shows/${showId}`);
    await page.waitForURL(new RegExp(`/shows/${showId}/queue$`));
    await context.close();

    // Admitted (as the queue page leaves it in this tab): the map, and a hold that carries the admission.
    const { admission } = await joinAndAdmit(t.http, showId, buyers[2]!.token);
    const buyer = await signedIn(browser, t.baseUrl, buyers[2]!);
    const stored = JSON.stringify({ admission_token: admission, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await buyer.context.addInitScript(([key, value]) => sessionStorage.setItem(key!, value!), [`boxoffice.admission.${showId}`, stored]);
    await buyer.page.goto(`/shows/${showId}`);
    await seat(buyer.page, 'Row B, seat 2').click();
    const sent = buyer.page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/shows/${showId}/holds`));
    await buyer.page.getByRole('button', { name: 'Hold seats' }).click();
    expect((await sent).headers()['admission-token']).toBe(admission);
    await buyer.page.waitForURL(/\/holds\/[^/]+$/);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('goes back to the queue when the admission is refused (QUEUE_REQUIRED), forgetting it', async () => {
    const showId = await showWith(t, cinemaRows(), { waiting_room: true });
    const buyer = await signedIn(browser, t.baseUrl, buyers[1]!);
    // An admission this tab believes in but the service does not (another show's, say).
    const { admission } = await joinAndAdmit(t.http, await showWith(t, cinemaRows(), { waiting_room: true }), buyers[1]!.token);
    const stored = JSON.stringify({ admission_token: admission, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await buyer.page.goto('/');
    await buyer.page.evaluate(([key, value]) => sessionStorage.setItem(key!, value!), [`boxoffice.admission.${showId}`, stored]);
    await buyer.page.goto(`/shows/${showId}`);
    await seat(buyer.page, 'Row C, seat 3').click();
    await buyer.page.getByRole('button', { name: 'Hold seats' }).click();
    await buyer.page.waitForURL(new RegExp(`/shows/${showId}/queue$`));
    // The refused admission is gone. The queue page may already hold a new one: this
    // buyer is first in a fresh room, which admits from its first tick.
    const kept = await buyer.page.evaluate((key) => sessionStorage.getItem(key), `boxoffice.admission.${showId}`);
    expect(kept === null ? null : (JSON.parse(kept) as { admission_token: string }).admission_token).not.toBe(admission);
    await buyer.context.close();
  });
});
