// The operators' pages (/admin): an operator creates a venue, an event, a hall (typed in
// the layout editor, and read from an uploaded file) and a show through the pages; the
// show's dashboard moves while a buyer purchases through the API; a waiting-room show is
// paused, resumed and capped from its dashboard. Every page at both widths, axe-checked,
// with no console errors. Someone who is not an operator is sent to sign in.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { roomConfig } from '../waiting-room/helpers.js';

/** Polls until `f` gives something truthy. */
async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The figure shown on the dashboard's tile with this label. */
const tile = (page: Page, label: string) => page.locator('.tile').filter({ has: page.getByText(label, { exact: true }) }).locator('.tile-value');

describeInBrowser('web app: operator pages', () => {
  let t: TestService;
  let browser: Browser;
  let adminId: string;
  let buyers: Buyer[];

  beforeAll(async () => {
    t = await startTestService({ pglite: true, payments: {}, config: roomConfig(null, { admitPerMinute: 600 }) });
    adminId = (await t.http.post('/v1/sessions', ADMIN)).body.user_id as string;
    buyers = await registerBuyers(t, 3);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page signed in as the test service's admin (the session the sign-in page would keep). */
  async function operatorPage(): Promise<{ page: Page; errors: string[]; context: BrowserContext }> {
    const opened = await openPage(browser, t.baseUrl);
    const s = JSON.stringify({ user_id: adminId, token: t.adminToken, role: 'admin' });
    await opened.context.addInitScript((session: string) => localStorage.setItem('boxoffice.session', session), s);
    return opened;
  }

  async function pay(buyer: Buyer, showId: string, seats: string[]): Promise<void> {
    const hold = await t.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token);
    expect(hold.status, hold.text).toBe(201);
    const booking = await t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': `pay-${hold.body.hold_id}` });
    expect(booking.status, booking.text).toBe(201);
    expect(booking.body.status).toBe('confirmed');
  }

  it('someone who is not an operator is told the pages are for operators and offered the sign-in', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    const scripts: string[] = [];
    page.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
    await page.goto('/');
    await page.getByRole('heading', { name: "What's on" }).waitFor();
    await page.waitForLoadState('networkidle');
    // Buyers never download the operator pages, nor the charts.
    expect(scripts.filter((s) => /AdminApp|ShowDashboard/.test(s))).toEqual([]);
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Operators only' }).waitFor();
    expect(await page.getByRole('link', { name: 'Sign in as an operator' }).getAttribute('href')).toBe('/signin?next=/admin');
    await screenshotBoth(page, 'admin-operators-only');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // A buyer's account is not an operator's: the sign-in brings them back to the page they asked for.
    const buyer = await openPage(browser, t.baseUrl);
    const s = JSON.stringify({ user_id: buyers[0]!.userId, token: buyers[0]!.token, role: 'user' });
    await buyer.context.addInitScript((session: string) => localStorage.setItem('boxoffice.session', session), s);
    await buyer.page.goto('/admin/shows/show_x');
    await buyer.page.getByText('This account is not an operator account.').waitFor();
    expect(await buyer.page.getByRole('link', { name: 'Sign in as an operator' }).getAttribute('href')).toBe('/signin?next=/admin/shows/show_x');
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('an operator builds a venue, an event, two halls and a show through the pages, and its dashboard moves with a sale', async () => {
    const { page, errors, context } = await operatorPage();
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Operators', exact: true }).waitFor();
    await page.getByText('No venues yet.').waitFor();

    // A venue: an unknown time zone is refused by the service, its message beside the field.
    await page.getByLabel('Venue name').fill('Théâtre du Port');
    await page.getByLabel('City').fill('Lyon');
    await page.getByLabel('Time zone').fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Create venue' }).click();
    await page.locator('#venue-timezone-error').getByText('"Mars/Olympus" is not an IANA timezone').waitFor();
    expect(await page.getByLabel('Time zone').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Time zone').fill('Europe/Paris');
    await page.getByRole('button', { name: 'Create venue' }).click();
    await page.getByRole('status').getByText('Venue Théâtre du Port created.').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Théâtre du Port · Lyon · Europe/Paris' }).waitFor();

    await page.getByLabel('Title').fill('Harbour Lights');
    await page.getByLabel('Kind').fill('concert');
    await page.getByLabel('Duration (minutes)').fill('95');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByRole('listitem').filter({ hasText: 'Harbour Lights · concert · 95 min' }).waitFor();
    await screenshotBoth(page, 'admin-home');
    expect(await seriousViolations(page)).toEqual([]);

    // A hall typed in the editor: mistakes are named as they are typed, the preview follows.
    await page.getByRole('link', { name: 'New hall' }).click();
    await page.getByRole('heading', { name: 'New hall' }).waitFor();
    await page.getByLabel('Hall name').fill('Main hall');
    const row = (n: number) => page.getByRole('group', { name: new RegExp(`^Row ${n}\\b`) });
    await row(1).getByLabel('Seats', { exact: true }).fill('8');
    await page.getByRole('button', { name: 'Add row' }).click();
    await row(2).getByLabel('Tier', { exact: true }).fill('premium');
    await row(2).getByLabel('Accessible seats (optional)').fill('1, 2');
    await page.getByRole('button', { name: 'Add row' }).click();
    await row(3).getByLabel('Row name').fill('A');
    await row(3).getByLabel('Seats', { exact: true }).fill('0');
    await row(3).getByLabel('Tier', { exact: true }).fill('');
    const problems = page.getByRole('alert', { name: 'Layout problems' });
    await problems.getByText('Row A appears twice (rows 1 and 3).').waitFor();
    await problems.getByText('Row A needs a price tier.').waitFor();
    await problems.getByText(/Row A: seats must be a count from 1 to 100000/).waitFor();
    await row(3).getByText('Row A appears twice (rows 1 and 3).').waitFor();
    await screenshotBoth(page, 'admin-hall-editor-problems');
    await page.getByRole('button', { name: 'Remove row 3 (A)' }).click();
    await expect.poll(() => problems.count()).toBe(0);
    const preview = page.getByRole('img', { name: /^Hall preview/ });
    await expect.poll(() => preview.getAttribute('aria-label')).toBe('Hall preview: 16 seats in 2 rows; standard 8, premium 8.');
    await expect.poll(() => page.locator('.layout-preview svg rect').count()).toBe(16);
    await screenshotBoth(page, 'admin-hall-editor');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create hall' }).click();
    await page.getByRole('status').getByText('Hall Main hall created with 16 seats.').waitFor();

    // A hall read from an uploaded layout file: a bad file is explained, a good one fills the editor.
    await page.getByRole('link', { name: 'New hall' }).click();
    await page.getByLabel('Hall name').fill('Stadium stand');
    await page.getByLabel('Or paste layout JSON').fill('{"rows": [{"row": "Z", "seats": 1, "tier": "vip"}]}');
    await page.getByRole('button', { name: 'Use pasted layout' }).click();
    expect(await preview.getAttribute('aria-label')).toBe('Hall preview: 1 seat in 1 row; vip 1.');
    const upload = page.getByLabel('Upload a layout file');
    const file = (name: string, layout: unknown) => ({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(layout)) });
    // A stadium's file: 600 rows in 6 sections are checked and drawn; the editor shows the first 100.
    const stadium = { rows: Array.from({ length: 600 }, (_, i) => ({ row: `R${i % 100}`, seats: 100, tier: 'standard', section: `S${Math.floor(i / 100)}` })) };
    await upload.setInputFiles(file('stadium.json', stadium));
    await page.getByText('500 more rows are not shown').waitFor();
    expect(await preview.getAttribute('aria-label')).toBe('Hall preview: 60,000 seats in 600 rows, 6 sections; standard 60,000.');
    expect(await problems.count()).toBe(0);
    await upload.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"rows": [') });
    await page.getByText('The file broken.json could not be read.').waitFor();
    await upload.setInputFiles(file('stand.json', { rows: [
      { row: 'A', seats: 6, tier: 'standard', section: '101' },
      { row: 'A', seats: [1, 2, 3, 5], section: '101' },
      { row: 'A', seats: 4, tier: 'premium', section: '102', accessible: [1] },
    ] }));
    await problems.getByText('Row A in section 101 appears twice (rows 1 and 2).').waitFor();
    await problems.getByText('Row A needs a price tier.').waitFor();
    await upload.setInputFiles(file('stand.json', { rows: [
      { row: 'A', seats: 6, tier: 'standard', section: '101' },
      { row: 'B', seats: [1, 2, 3, 5], tier: 'standard', section: '101' },
      { row: 'A', seats: 4, tier: 'premium', section: '102', accessible: [1] },
    ], sections: [{ section: '102', plan: { x: 380, y: 640, w: 240, h: 120 } }] }));
    await page.getByText('This file places 1 section.').waitFor();
    await until('the file in the editor', async () => (await row(2).getByLabel('Seats', { exact: true }).inputValue()) === '1-3, 5');
    expect(await row(3).getByLabel('Section (optional)').inputValue()).toBe('102');
    expect(await problems.count()).toBe(0);
    expect(await preview.getAttribute('aria-label')).toBe('Hall preview: 14 seats in 3 rows, 2 sections; standard 10, premium 4.');
    await screenshotBoth(page, 'admin-hall-upload');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create hall' }).click();
    await page.getByRole('status').getByText('Hall Stadium stand created with 14 seats.').waitFor();
    const halls = (await t.http.get('/v1/admin/halls', t.adminToken)).body.halls as { name: string; seat_count: number }[];
    expect(halls.map((h) => [h.name, h.seat_count])).toEqual([['Main hall', 16], ['Stadium stand', 14]]);

    // A show: times in the venue's zone (Paris, UTC+1 in January), prices typed in euros.
    await page.getByRole('link', { name: 'New show' }).click();
    await page.getByRole('heading', { name: 'New show' }).waitFor();
    await page.getByLabel('Event', { exact: true }).selectOption({ label: 'Harbour Lights' });
    await page.getByLabel('Hall', { exact: true }).selectOption({ label: 'Main hall — Théâtre du Port (16 seats)' });
    await page.getByLabel('Price of premium').waitFor();
    const year = new Date().getUTCFullYear() + 1;
    await page.getByLabel('Starts at (Europe/Paris time)').fill(`${year}-01-15T20:00`);
    await page.getByLabel('Price of standard').fill('12.50');
    await page.getByLabel('Price of premium').fill('30.5.0');
    await page.getByRole('button', { name: 'Create show' }).click();
    await page.locator('#price-premium-error').getByText('Tier premium needs a price, e.g. 12.50.').waitFor();
    await page.getByLabel('Price of premium').fill('30');
    await page.getByLabel('Hold time (seconds)').fill('300');
    await screenshotBoth(page, 'admin-show-new');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create show' }).click();

    // Its dashboard.
    await page.waitForURL((u) => /^\/admin\/shows\/[^/]+$/.test(u.pathname) && u.pathname !== '/admin/shows/new');
    const showId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    const show = (await t.http.get(`/v1/shows/${showId}`)).body;
    expect(show).toMatchObject({
      starts_at: `${year}-01-15T19:00:00.000Z`, currency: 'EUR', price_tiers: { standard: 1250, premium: 3000 },
      hold_ttl_seconds: 300, per_user_limit: 10, cancel_until_minutes_before: 120, waiting_room: false,
      event: { title: 'Harbour Lights' }, hall: { name: 'Main hall' }, venue: { timezone: 'Europe/Paris' },
    });
    await page.getByRole('heading', { name: 'Harbour Lights' }).waitFor();
    await page.getByRole('status', { name: 'Double-sold seats: 0' }).waitFor();
    await until('the first figures', async () => (await tile(page, 'Available').textContent()) === '16');
    expect(await tile(page, 'Booked').textContent()).toBe('0');

    // A sale happens through the API: the dashboard follows within a couple of seconds.
    const [alice, bob] = buyers as [Buyer, Buyer];
    await pay(alice, showId, ['A1', 'A2']);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2'] }, bob.token)).status).toBe(409);
    expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['B3'] }, bob.token)).status).toBe(201);
    await until('the booking on the dashboard', async () => (await tile(page, 'Booked').textContent()) === '2');
    await until('the hold on the dashboard', async () => (await tile(page, 'Held').textContent()) === '1');
    expect(await tile(page, 'Available').textContent()).toBe('13');
    expect(await tile(page, 'Hold-to-booking conversion').textContent()).toBe('50.0 %');
    expect(await tile(page, '409 rate').textContent()).toBe('50.0 %');
    expect(await tile(page, 'Refunds after expired holds').textContent()).toBe('0');
    expect(await page.getByRole('img', { name: /^Held and booked seats:/ }).getAttribute('aria-label')).toBe('Held and booked seats: now 1 held, 2 booked, 13 available');
    expect(await page.getByRole('img', { name: /^Conversion and 409 rate:/ }).getAttribute('aria-label')).toBe('Conversion and 409 rate: now conversion 50.0 %, 409 rate 50.0 %');
    expect(await page.locator('.time-chart canvas').count()).toBeGreaterThanOrEqual(2);
    await page.getByRole('status', { name: 'Double-sold seats: 0' }).waitFor();
    await screenshotBoth(page, 'admin-dashboard');
    expect(await seriousViolations(page)).toEqual([]);

    // Its settings change through the edit page (PATCH).
    await page.getByRole('link', { name: 'Edit show' }).click();
    await page.getByRole('heading', { name: 'Edit show: Harbour Lights' }).waitFor();
    expect(await page.getByLabel('Starts at (Europe/Paris time)').inputValue()).toBe(`${year}-01-15T20:00`);
    expect(await page.getByLabel('Price of standard').inputValue()).toBe('12.50');
    await page.getByLabel('Seats per buyer').fill('4');
    await page.getByLabel('Price of premium').fill('32.00');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect((await t.http.get(`/v1/shows/${showId}`)).body).toMatchObject({ per_user_limit: 4, price_tiers: { standard: 1250, premium: 3200 }, starts_at: `${year}-01-15T19:00:00.000Z` });
    await screenshotBoth(page, 'admin-show-edit');
    expect(await seriousViolations(page)).toEqual([]);

    // The operators' home lists all of it, each show with its dashboard and edit page.
    await page.getByRole('link', { name: '← Operators' }).click();
    await page.getByRole('link', { name: /^Dashboard of Harbour Lights/ }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Stadium stand · Théâtre du Port · 14 seats' }).waitFor();
    await screenshotBoth(page, 'admin-home-full');
    expect(await seriousViolations(page)).toEqual([]);

    // The one 400 of this test (the unknown time zone, on purpose) is the browser's own network log line.
    expect(errors.filter((e) => !/Failed to load resource: the server responded with a status of 400/.test(e))).toEqual([]);
    expect(errors.length).toBeLessThanOrEqual(1);
    await context.close();
  });

  it("an operator pauses, resumes and caps a waiting room from the show's dashboard", async () => {
    const { showId } = await createShow(t, { waiting_room: true, rows: 2, seatsPerRow: 5 });
    const queue = async () => (await t.http.get(`/v1/admin/shows/${showId}/queue`, t.adminToken)).body as { paused: boolean; max_admit_per_minute: number | null; waiting: number };
    const { page, errors, context } = await operatorPage();
    await page.goto(`/admin/shows/${showId}`);
    await page.getByRole('heading', { name: 'Waiting room' }).waitFor();

    await page.getByRole('button', { name: 'Pause admissions' }).click();
    await page.getByRole('status').getByText('The waiting room is paused.').waitFor();
    expect((await queue()).paused).toBe(true);

    // While paused, a buyer who joins waits: the queue depth on the page follows.
    const carol = buyers[2]!;
    expect((await t.http.post(`/v1/shows/${showId}/queue`, {}, carol.token)).status).toBe(201);
    await until('the queue depth', async () => (await tile(page, 'Queue depth').textContent()) === '1');

    await page.getByLabel('Cap (admissions per minute)').fill('5');
    await page.getByRole('button', { name: 'Set cap' }).click();
    await page.getByRole('status').getByText('Admissions capped at 5 a minute.').waitFor();
    expect((await queue()).max_admit_per_minute).toBe(5);
    await screenshotBoth(page, 'admin-waiting-room');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Resume admissions' }).click();
    await page.getByRole('status').getByText('The waiting room admits again.').waitFor();
    expect((await queue()).paused).toBe(false);
    await page.getByRole('button', { name: 'Remove cap' }).click();
    await page.getByRole('status').getByText('The cap is removed.').waitFor();
    expect((await queue()).max_admit_per_minute).toBeNull();
    await until('the waiting buyer admitted', async () => (await tile(page, 'Queue depth').textContent()) === '0');
    expect(errors).toEqual([]);
    await context.close();
  });
});
