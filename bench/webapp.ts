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

interface Trial { interactiveMs: number; jsSentBytes: number; jsBytes: number; scripts: number }

async function firstLoad(browser: Browser, url: string): Promise<Trial> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
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
  await page.waitForFunction((n) => document.querySelectorAll('[data-seat]').length >= n, SEATS, { polling: 'raf' });
  await page.locator(`${SEAT}[data-status="available"]`).first().click();
  await page.locator(SELECTED).first().waitFor();
  const interactiveMs = performance.now() - started;
  const sizes = await Promise.all(scripts);
  await context.close();
  if (errors.length) throw new Error(`page errors on ${url}: ${errors.join('; ')}`);
  return {
    interactiveMs,
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
    note(`  trial ${i + 1}/${trials}: ours ${fixed(ours.at(-1)!.interactiveMs)} ms, baseline ${fixed(bare.at(-1)!.interactiveMs)} ms`);
  }

  const p = (t: Trial[]) => percentiles(Float64Array.from(t.map((x) => x.interactiveMs)));
  const po = p(ours);
  const pb = p(bare);
  const kb = (b: number) => fixed(b / 1024, 1);
  say(`\nFirst load of the show page, ${SEATS} seats, ${trials} cold loads each (chromium ${browser.version()})`);
  say(table(
    ['page', 'JS sent KB', 'JS run KB', 'scripts', 'interactive p50 ms', 'p90 ms', 'max ms'],
    [
      ['boxoffice /shows/:id', kb(ours[0]!.jsSentBytes), kb(ours[0]!.jsBytes), String(ours[0]!.scripts), fixed(po.p50), fixed(po.p90), fixed(po.max)],
      ['bare SVG page (baseline)', kb(bare[0]!.jsSentBytes), kb(bare[0]!.jsBytes), String(bare[0]!.scripts), fixed(pb.p50), fixed(pb.p90), fixed(pb.max)],
    ],
  ));
  say(`interactive p50 ratio to the baseline: ${fixed(po.p50 / pb.p50, 2)}×`);
  const jsOk = ours[0]!.jsSentBytes / 1024 < GOAL_JS_KB;
  const ttiOk = po.p90 < GOAL_INTERACTIVE_MS;
  say(`goals: JS sent ${kb(ours[0]!.jsSentBytes)} KB < ${GOAL_JS_KB} KB: ${jsOk ? 'met' : 'MISSED'}; interactive p90 ${fixed(po.p90)} ms < ${GOAL_INTERACTIVE_MS} ms: ${ttiOk ? 'met' : 'MISSED'}`);
  await closeApiClient();
});
