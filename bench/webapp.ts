// Benchmark: the first load of the show page for a 200-seat show, in Debian's chromium.
// Each trial opens a fresh browser context (empty cache) on /shows/<id>, and measures
//   - the JavaScript it downloaded, as sent (compressed) and as run, and
//   - time to interactive: from navigation until every seat is drawn and a click on an
//     available seat has selected it (what a buyer can first do on the page).
// Beside it, in the same run and in alternating order, the raw baseline: one page from a
// bare node:http server whose inline script fetches the same seat map bytes and draws
// the same 200 seats as plain SVG that a click selects — no framework, no app.
//
//   npm run bench:webapp     BENCH_TRIALS=15   CHROMIUM_PATH=/usr/bin/chromium
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runBenchmark, onCleanup } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { createBenchDatabase } from './lib/db.js';
import { startService } from './lib/child.js';
import { adminToken, call, closeApiClient, createShow } from './lib/api.js';
import { envNumber, fixed, percentiles, table } from './lib/stats.js';

const GOAL_JS_KB = 200;
const GOAL_INTERACTIVE_MS = 1000;
const SEATS = 200;
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);

/** The page's seats: each seat of the map is one element with data-seat (the app's and the baseline's). */
const SEAT = '[data-seat]';
const SELECTED = '[data-seat][aria-pressed="true"], [data-seat][aria-checked="true"]';

const BASELINE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>baseline</title></head><body>
<svg id="map" role="group" aria-label="Seats"></svg>
<script>
fetch('/map.json').then((r) => r.json()).then((map) => {
  const svg = document.getElementById('map');
  const rows = [...new Set(map.seats.map((s) => s.row))];
  svg.setAttribute('viewBox', '0 0 ' + (Math.max(...map.seats.map((s) => s.number)) * 20 + 40) + ' ' + (rows.length * 20 + 20));
  for (const s of map.seats) {
    const c = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
    c.setAttribute('cx', String(s.number * 20 + 10)); c.setAttribute('cy', String(rows.indexOf(s.row) * 20 + 10)); c.setAttribute('r', '8');
    c.setAttribute('data-seat', s.seat); c.setAttribute('role', 'button'); c.setAttribute('tabindex', '0');
    c.setAttribute('aria-pressed', 'false'); c.setAttribute('data-status', s.status);
    c.addEventListener('click', () => { if (s.status === 'available') c.setAttribute('aria-pressed', String(c.getAttribute('aria-pressed') !== 'true')); });
    svg.appendChild(c);
  }
});
</script></body></html>`;

function startBaseline(mapBody: Buffer): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/map.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': mapBody.length });
      res.end(mapBody);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(BASELINE_PAGE);
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Trial {
  /** As the driver sees it: page.goto until its click on a seat has selected it. */
  interactiveMs: number;
  /** As the page's own clock says (ms since navigation start): every seat drawn, and a click's selection shown. */
  drawnMs: number;
  clickMs: number;
  jsSentBytes: number;
  jsBytes: number;
  scripts: number;
}

/** Runs in the page before its own scripts: notes when every seat is drawn, on the page's clock. */
const WATCH_SEATS = `(() => {
  const look = () => {
    if (document.querySelectorAll('[data-seat]').length >= ${SEATS}) { window.__seatsDrawnAt = performance.now(); return; }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();`;

/** In the page: clicks an available seat and measures until its selection is shown (the next frame after the change). */
function timeOneClick(): Promise<number> {
  return new Promise((resolve) => {
    const seat = document.querySelector('[data-seat][data-status="available"]') as SVGElement;
    const started = performance.now();
    const observer = new MutationObserver(() => {
      const selected = seat.getAttribute('aria-pressed') === 'true' || seat.getAttribute('aria-checked') === 'true' || document.querySelector('[data-seat][aria-checked="true"], [data-seat][aria-pressed="true"]');
      if (!selected) return;
      observer.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - started));
    });
    observer.observe(document.body, { attributes: true, subtree: true });
    seat.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
}

async function firstLoad(browser: Browser, url: string): Promise<Trial> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(WATCH_SEATS);
  const page: Page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const scripts: Promise<{ sent: number; size: number }>[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() !== 'script') return;
    scripts.push((async () => ({ sent: (await res.request().sizes()).responseBodySize, size: (await res.body()).length }))());
  });
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => (window as unknown as { __seatsDrawnAt?: number }).__seatsDrawnAt !== undefined, null, { polling: 'raf' });
  const drawnMs = await page.evaluate(() => (window as unknown as { __seatsDrawnAt: number }).__seatsDrawnAt);
  const clickMs = await page.evaluate(timeOneClick);
  await page.locator(SELECTED).first().waitFor();
  await page.locator(SELECTED).first().click(); // back off, then the driver's own click
  await page.locator(`${SEAT}[data-status="available"]`).nth(1).click();
  await page.locator(SELECTED).first().waitFor();
  const interactiveMs = performance.now() - started;
  const sizes = await Promise.all(scripts);
  await context.close();
  if (errors.length) throw new Error(`page errors on ${url}: ${errors.join('; ')}`);
  return {
    interactiveMs,
    drawnMs,
    clickMs,
    jsSentBytes: sizes.reduce((a, s) => a + s.sent, 0),
    jsBytes: sizes.reduce((a, s) => a + s.size, 0),
    scripts: sizes.length,
  };
}

runBenchmark(async () => {
  const trials = envNumber('BENCH_TRIALS', 15);
  const db = await createBenchDatabase();
  const service = await startService({ databaseUrl: db.url });
  const token = await adminToken(service.baseUrl);
  const show = await createShow(service.baseUrl, token, { rows: 10, seatsPerRow: 20 });
  const map = await call(service.baseUrl, 'GET', `/v1/shows/${show.showId}/seats`);
  const baseline = await startBaseline(Buffer.from(JSON.stringify(map.body)));
  onCleanup('stop the baseline page server', () => new Promise<void>((r) => baseline.close(() => r())));
  const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;
  const ourUrl = `${service.baseUrl}/shows/${show.showId}`;

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: FLAGS, headless: true });
  onCleanup('close chromium', () => browser.close());
  note(`bench:webapp: ${SEATS}-seat show ${show.showId}; ${trials} cold first loads each, alternating; warming up`);
  await firstLoad(browser, ourUrl);
  await firstLoad(browser, baselineUrl);

  const ours: Trial[] = [];
  const bare: Trial[] = [];
  for (let i = 0; i < trials; i++) {
    const order = i % 2 === 0 ? [[ourUrl, ours], [baselineUrl, bare]] as const : [[baselineUrl, bare], [ourUrl, ours]] as const;
    for (const [url, into] of order) into.push(await firstLoad(browser, url));
    const t = (x: Trial) => `${fixed(x.drawnMs + x.clickMs)} ms (driver ${fixed(x.interactiveMs)})`;
    note(`  trial ${i + 1}/${trials}: ours ${t(ours.at(-1)!)}, baseline ${t(bare.at(-1)!)}`);
  }

  const p = (t: Trial[], f: (x: Trial) => number = (x) => x.interactiveMs) => percentiles(Float64Array.from(t.map(f)));
  const po = p(ours);
  const pb = p(bare);
  // Interactive on the page's own clock: all seats drawn, plus a click's selection shown.
  const own = (x: Trial) => x.drawnMs + x.clickMs;
  const oo = p(ours, own);
  const ob = p(bare, own);
  const kb = (b: number) => fixed(b / 1024, 1);
  say(`\nFirst load of the show page, ${SEATS} seats, ${trials} cold loads each (chromium ${browser.version()})`);
  say(table(
    ['page', 'JS sent KB', 'JS run KB', 'scripts', 'drawn p50 ms', 'click p50 ms', 'interactive p50', 'p90', 'max', 'driver p50', 'driver p90'],
    [[`boxoffice /shows/:id`, ours, oo, po] as const, ['bare SVG page (baseline)', bare, ob, pb] as const].map(([name, t, o, d]) => [
      name, kb(t[0]!.jsSentBytes), kb(t[0]!.jsBytes), String(t[0]!.scripts), fixed(p(t, (x) => x.drawnMs).p50), fixed(p(t, (x) => x.clickMs).p50),
      fixed(o.p50), fixed(o.p90), fixed(o.max), fixed(d.p50), fixed(d.p90),
    ]),
  ));
  say('interactive: on the page\'s clock, from navigation start until every seat is drawn, plus one click until its selection is shown;');
  say('driver: as playwright sees it (a new tab\'s goto until its own click has selected a seat), overhead of the driver included.');
  say(`interactive p50 ratio to the baseline: ${fixed(oo.p50 / ob.p50, 2)}× (driver: ${fixed(po.p50 / pb.p50, 2)}×)`);
  const jsOk = ours[0]!.jsSentBytes / 1024 < GOAL_JS_KB;
  const ttiOk = oo.p90 < GOAL_INTERACTIVE_MS;
  say(`goals: JS sent ${kb(ours[0]!.jsSentBytes)} KB < ${GOAL_JS_KB} KB: ${jsOk ? 'met' : 'MISSED'}; interactive p90 ${fixed(oo.p90)} ms < ${GOAL_INTERACTIVE_MS} ms: ${ttiOk ? 'met' : 'MISSED'}`);
  await closeApiClient();
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary([
    { bench: 'webapp', figure: 'interactive p50 (page clock)', value: oo.p50, unit: 'ms', baseline: ob.p50, baseline_label: 'bare SVG page' },
    { bench: 'webapp', figure: 'interactive p90 (page clock)', value: oo.p90, unit: 'ms', baseline: ob.p90, baseline_label: 'bare SVG page', goal: `< ${GOAL_INTERACTIVE_MS} ms`, met: ttiOk },
    { bench: 'webapp', figure: 'JS sent', value: ours[0]!.jsSentBytes / 1024, unit: 'KB', baseline: bare[0]!.jsSentBytes / 1024, baseline_label: 'bare SVG page', goal: `< ${GOAL_JS_KB} KB`, met: jsOk },
  ]);
});
