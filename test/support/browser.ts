// Browser tests: Debian's chromium driven by playwright-core, pages screenshotted at
// desktop and phone width under test-results/, checked with axe-core, console watched.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const RESULTS = path.resolve(import.meta.dirname, '../../test-results');

/**
 * `describe` for browser tests. Without chromium (a fresh machine: `apt-get install
 * chromium`) they are skipped with a notice, so `npm test` still passes; under CI=true
 * (`.ci/run`, which installs it) a missing browser fails them instead.
 */
const browserMissing = !existsSync(CHROMIUM) && !process.env.CI;
if (browserMissing) process.stderr.write(`browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`);
export const describeInBrowser = describe.skipIf(browserMissing);

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

/**
 * A page whose console errors and uncaught exceptions are collected in `errors`,
 * and whose Content-Security-Policy violations in `cspViolations`: closing the
 * context throws when there was any, so every browser test fails on a page that
 * breaks the policy the service sends. The browser's zone is UTC unless `timezoneId` says otherwise.
 */
export async function openPage(browser: Browser, baseUrl: string, viewport = DESKTOP, { timezoneId = 'UTC' } = {}): Promise<{ context: BrowserContext; page: Page; errors: string[]; cspViolations: string[] }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport, locale: 'en-GB', timezoneId });
  const cspViolations: string[] = [];
  // A binding and an init script run outside the page's policy: the report cannot be refused itself.
  await context.exposeBinding('reportCspViolation', (_source, violation: string) => { cspViolations.push(violation); });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { reportCspViolation(v: string): void }).reportCspViolation;
      report(`${e.effectiveDirective} refused ${e.blockedURI || 'inline'} at ${e.sourceFile || e.documentURI}:${e.lineNumber}`);
    });
  });
  const close = context.close.bind(context);
  context.close = async (...args: Parameters<BrowserContext['close']>) => {
    await close(...args);
    if (cspViolations.length) throw new Error(`the page broke its Content-Security-Policy: ${cspViolations.join('; ')}`);
  };
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return { context, page, errors, cspViolations };
}

/** Screenshots the page at desktop and phone width: test-results/<name>-desktop.png and -phone.png. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  const before = page.viewportSize() ?? DESKTOP;
  for (const [label, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(RESULTS, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: string[] }

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated, not added as an inline <script>: the page's policy refuses those.
  await page.evaluate(`${AXE_SOURCE}\n;undefined`);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
