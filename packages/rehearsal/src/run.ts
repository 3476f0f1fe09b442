// One rehearsal from start to end: the service (started or given), the show and
// buyers, the sale with its monitor, the settling, the audit and the report.
import path from 'node:path';
import { audit, type AuditResult } from './audit.js';
import { readBooks, settle } from './auditRead.js';
import { dispatchArrivals, runBuyer, type Market } from './buyer.js';
import { REPO_ROOT } from './child.js';
import { QueueEdge } from './edge.js';
import { EdgeCache } from './edgeCache.js';
import { BuyerHttp } from './http.js';
import { startMonitor, type Samples } from './monitor.js';
import type { Options } from './options.js';
import { turnOnPaymentChaos } from './paymentChaos.js';
import { Recorder } from './recorder.js';
import { writeReport } from './report.js';
import { serviceUnderTest } from './service.js';
import { seededRandom } from '@boxoffice/paysim';
import { createShows, signIn, syntheticBuyers } from './setup.js';

export interface RunResult {
  opts: Readonly<Options>;
  rec: Recorder;
  samples: Samples;
  audit: AuditResult;
  /** Seconds from the first arrival to the last buyer done. */
  saleSeconds: number;
  settleSeconds: number;
  setupSeconds: number;
  service: string;
  serviceCpuSeconds: number | null;
  reportDir: string;
  charges: number;
  refunds: number;
}

export async function rehearse(opts: Readonly<Options>, log: (s: string) => void, serviceEntry?: string): Promise<RunResult> {
  const t0 = performance.now();
  const svc = await serviceUnderTest(opts, log, serviceEntry);
  // Undo steps of what the rehearsal changed on the service, run at the end (and by
  // the clean-up registry on Ctrl-C or a failure): newest first.
  const undo: (() => Promise<void>)[] = [];
  try {
    const admin = await signIn(svc.baseUrl, svc.admin);
    // The buyers first: a service without synthetic buyers stops the rehearsal before it made anything.
    log(`making ${opts.buyers} synthetic buyers…`);
    const buyers = await syntheticBuyers(svc.baseUrl, admin, opts.buyers, (n) => log(`  ${n} buyers`));
    if (opts.chaos) undo.unshift(await turnOnPaymentChaos(svc.paysimUrl, log));
    const shows = await createShows(svc.baseUrl, admin, opts);
    undo.unshift(shows.close);
    const showIds = shows.ids;
    log(`${opts.shows} show(s) of ${opts.seats} seats${opts.waitingRoom ? ', through the waiting room' : ''}`);
    const setupSeconds = (performance.now() - t0) / 1000;

    const rec = new Recorder();
    rec.watchOwnLoop();
    const http = new BuyerHttp(svc.baseUrl, Math.min(opts.buyers, 1024), rec);
    const edge = opts.waitingRoom ? new QueueEdge(http, showIds[0]!) : null;
    const market: Market = { http, rec, opts, showIds, edge, maps: opts.originMaps ? null : new EdgeCache(http), stopAt: rec.startedAt + opts.maxSeconds * 1000, holds: [], bookings: [] };
    const arrivalRandom = seededRandom(opts.seed);
    const arrivals = buyers.map(() => arrivalRandom() * opts.arrivalSeconds * 1000);
    log(`the sale: ${opts.buyers} buyers arriving within ${opts.arrivalSeconds} s (seed ${opts.seed})`);
    edge?.start();
    // At the end of the sale, buyers still waiting in the queue go home.
    const closing = setTimeout(() => edge?.stop(), opts.maxSeconds * 1000);
    const monitor = startMonitor({ baseUrl: svc.baseUrl, adminToken: admin, showId: opts.shows === 1 ? showIds[0]! : null, waitingRoom: opts.waitingRoom, rec, edge, seats: opts.seats, shows: opts.shows });
    await dispatchArrivals(arrivals, (i, rank) => runBuyer(market, buyers[i]!, i, rank));
    const saleSeconds = (performance.now() - rec.startedAt) / 1000;
    rec.stopWatchingOwnLoop();
    clearTimeout(closing);
    edge?.stop();
    await monitor.stop();
    await http.close();

    log(`sale over after ${saleSeconds.toFixed(0)} s; letting the service settle (up to ${opts.settleSeconds} s)…`);
    const bookingIds = market.bookings.map((b) => b.id);
    let settleMs = await settle(svc.baseUrl, admin, market.holds, bookingIds, opts.settleSeconds * 1000, log);
    // The audit re-reads until the books agree or the settle budget is spent: a refund
    // for a charge whose seats were lost may still be on its way through the outbox.
    let books = await readBooks({ baseUrl: svc.baseUrl, paysimUrl: svc.paysimUrl, admin, showIds, holds: market.holds, bookings: bookingIds });
    let result = audit(books);
    while (!result.ok && settleMs < opts.settleSeconds * 1000) {
      log(`  audit not clean yet (${result.checks.filter((c) => c.count > 0).map((c) => `${c.name}: ${c.count}`).join('; ')}); reading again in 5 s`);
      await new Promise((r) => setTimeout(r, 5000));
      settleMs += 5000;
      books = await readBooks({ baseUrl: svc.baseUrl, paysimUrl: svc.paysimUrl, admin, showIds, holds: market.holds, bookings: bookingIds });
      result = audit(books);
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const reportDir = opts.reportDir ?? path.join(REPO_ROOT, 'onsale-reports', `${opts.preset}-${stamp}`);
    const run: RunResult = {
      opts, rec, samples: monitor.samples, audit: result, saleSeconds, settleSeconds: settleMs / 1000, setupSeconds, service: svc.description,
      serviceCpuSeconds: svc.child?.cpuSeconds() ?? null, reportDir, charges: books.charges.length, refunds: books.refunds.length,
    };
    await writeReport(run);
    return run;
  } finally {
    for (const step of undo) await step().catch((err: Error) => log(`clean-up failed: ${err.message}`));
    await svc.stop();
  }
}
