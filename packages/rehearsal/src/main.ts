// `npm run onsale -- [options]`: the on-sale rehearsal (docs/rehearsal.md). Exits 0
// when the audit is clean; 1 when it is not or the run failed; 2 on bad options.
import { foreignLine } from './audit.js';
import { runBenchmark } from './cleanup.js';
import { headline } from './figures.js';
import { parseOptions, USAGE } from './options.js';
import { rehearse } from './run.js';

const log = (s: string) => process.stderr.write(`${s}\n`);

let opts;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (err) {
  const message = (err as Error).message;
  process.stderr.write(`${message === USAGE ? '' : `${message}\n\n`}${USAGE}\n`);
  process.exit(message === USAGE ? 0 : 2);
}

runBenchmark(async () => {
  const r = await rehearse(opts, log);
  const h = headline(r);
  const say = (s: string) => process.stdout.write(`${s}\n`);
  say(`\n${r.opts.preset}: sold ${h.sold} of ${h.totalSeats} seats; ${h.soldOutSeconds === null ? 'did not sell out' : `sold out after ${h.soldOutSeconds.toFixed(1)} s`}` +
    `${h.sold95Seconds === null ? '' : `, 95 % after ${h.sold95Seconds.toFixed(1)} s`}` +
    `${h.admissionBoundSeconds === null ? '' : ` (admission-bound limit ${h.admissionBoundSeconds.toFixed(1)} s)`}` +
    `${h.lastLapseSeconds === null ? '' : `; the last hold walked away from lapsed after ${h.lastLapseSeconds.toFixed(1)} s`}`);
  if (r.rec.totals.waitlisted > 0) say(`waiting list: ${r.rec.totals.waitlisted} joined, ${r.rec.totals.offers} offers received`);
  const pc = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)} %`);
  say(`409 rate: chosen seats ${pc(h.chosenConflictRate)}, best available ${pc(h.bestConflictRate)} (until the last 2 % of seats ${pc(h.bestConflictRateTo98)})`);
  say(`holds/s ${h.holdsPerSecond.toFixed(1)}, bookings/s ${h.bookingsPerSecond.toFixed(1)}, 409 rate ${(100 * h.conflictRate).toFixed(1)} %, 503s ${h.shed}, timeouts ${h.timeouts}` +
    `${r.opts.waitingRoom ? `, wait p50/p90/p99 ${h.waiting.p50.toFixed(1)}/${h.waiting.p90.toFixed(1)}/${h.waiting.p99.toFixed(1)} s` : ''}, fairness ρ ${h.fairness === null ? '-' : h.fairness.toFixed(3)}`);
  for (const c of r.audit.checks) say(`  audit: ${c.name}: ${c.count}${c.examples.length ? ` (${c.examples.join('; ')})` : ''}`);
  if (r.audit.foreign.count > 0) say(`  ${foreignLine(r.audit.foreign)}`);
  say(`audit ${r.audit.ok ? 'clean' : 'FAILED'}; report: ${r.reportDir}/report.md`);
  if (!r.audit.ok) process.exitCode = 1;
});
