// The rehearsal's report: report.md (headline figures first, then the audit, the
// latencies per step and the answers seen) and its SVG charts, in one folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { foreignLine } from './audit.js';
import { lineChart, type Series } from './chart.js';
import { headline, type Headline } from './figures.js';
import { STEPS } from './recorder.js';
import type { RunResult } from './run.js';

const n0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
const n1 = (x: number | null) => (x !== null && Number.isFinite(x) ? x.toFixed(1) : '-');
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const secs = (x: number | null) => (x === null ? '-' : x >= 120 ? `${x.toFixed(0)} s (${(x / 60).toFixed(1)} min)` : `${x.toFixed(1)} s`);

function charts(r: RunResult): Record<string, string> {
  const { rec, samples } = r;
  const seconds = rec.seconds();
  const out: Record<string, string> = {};
  const cumulative = (values: number[]) => { let s = 0; return values.map((v, i) => [i + 1, (s += v)] as const); };
  const sold: Series[] = samples.seats.length
    ? [{ name: 'booked', points: samples.seats.map((s) => [s.t, s.booked]) }, { name: 'held', points: samples.seats.map((s) => [s.t, s.held]) }]
    : [{ name: 'seats sold (as buyers learned it)', points: cumulative(rec.series('seatsSold', seconds)) }];
  out['seats-sold.svg'] = lineChart({ title: 'Seats sold over time', xLabel: 'seconds since the sale opened', yLabel: 'seats', series: sold });
  if (samples.room.length) {
    out['queue.svg'] = lineChart({
      title: 'Queue depth and admission rate', xLabel: 'seconds since the sale opened', yLabel: 'buyers', y2Label: 'admitted per minute',
      series: [
        { name: 'waiting', points: samples.room.map((s) => [s.t, s.waiting]) },
        { name: 'served position', points: samples.room.map((s) => [s.t, s.serving]) },
        { name: 'admission rate /min', axis: 'right', points: samples.room.map((s) => [s.t, s.admitPerMinute]) },
      ],
    });
    out['controller.svg'] = lineChart({
      title: 'The admission controller: rate against measured hold latency', xLabel: 'seconds since the sale opened', yLabel: 'admitted per minute', y2Label: 'ms',
      series: [
        { name: 'admission rate /min', points: samples.room.map((s) => [s.t, s.admitPerMinute]) },
        { name: 'hold latency (controller)', axis: 'right', points: samples.room.filter((s) => s.holdLatencyMs !== null).map((s) => [s.t, s.holdLatencyMs!]) },
        { name: 'set point', axis: 'right', points: samples.room.filter((s) => s.setPointMs !== null).map((s) => [s.t, s.setPointMs!]) },
      ],
    });
  }
  const steps = STEPS.filter((s) => s !== 'queue status' && rec.overall.get(s)!.length > 0);
  const every = Math.max(1, Math.ceil(seconds / 150));
  const p99: Series[] = steps.map((step) => ({
    name: step,
    points: Array.from({ length: Math.ceil(seconds / every) }, (_, k) => [k * every + every / 2, rec.window([step], k * every, (k + 1) * every).summary().p99] as const),
  }));
  out['latency.svg'] = lineChart({ title: `p99 latency per step (${every} s windows)`, xLabel: 'seconds since the sale opened', yLabel: 'ms', series: p99 });
  return out;
}

function headlineTable(r: RunResult, h: Headline): string[] {
  const o = r.opts;
  return [
    '| figure | value |', '|---|---|',
    `| seats sold | ${n0(h.sold)} of ${n0(h.totalSeats)} |`,
    `| time to sell out | ${h.soldOutSeconds === null ? 'did not sell out' : secs(h.soldOutSeconds)} |`,
    `| time to 95 % sold | ${h.sold95Seconds === null ? '-' : secs(h.sold95Seconds)} |`,
    `| the last hold walked away from (tab closed) lapsed at | ${h.lastLapseSeconds === null ? '- (none lapsed)' : `${secs(h.lastLapseSeconds)}: its seats could not sell before then`} |`,
    `| admission-bound limit | ${h.admissionBoundSeconds === null ? 'n/a (no waiting room)' : `${secs(h.admissionBoundSeconds)}: ${n0(h.totalSeats)} seats ÷ (ceiling ${n0(r.samples.room.find((s) => s.ceilingPerMinute !== null)?.ceilingPerMinute ?? o.admitPerMinute)}/min ÷ 60 × ${h.seatsPerPurchase.toFixed(2)} seats per purchase)`} |`,
    `| holds/s (mean over the selling window; peak second) | ${n1(h.holdsPerSecond)}; ${n0(h.peakHoldsPerSecond)} |`,
    `| bookings/s (confirmed, mean over the selling window) | ${n1(h.bookingsPerSecond)} |`,
    `| 409 rate (lost seat races ÷ hold requests, 503s and timeouts included) | ${pct(h.conflictRate)} (${n0(r.rec.totals.conflicts)} of ${n0(r.rec.totals.holdAttempts)}) |`,
    `| 409 rate, seats chosen on the map (SEAT_UNAVAILABLE) | ${pct(h.chosenConflictRate)} (${n0(r.rec.totals.conflicts - r.rec.totals.bestConflicts)} of ${n0(r.rec.totals.holdAttempts - r.rec.totals.bestAttempts)}) |`,
    `| 409 rate, best available (NOT_ENOUGH_SEATS; ${pct(o.bestAvailableRate)} of buyers ask for it) | ${h.bestConflictRate === null ? '-' : pct(h.bestConflictRate)} (${n0(r.rec.totals.bestConflicts)} of ${n0(r.rec.totals.bestAttempts)}); until the last 2 % of seats: ${h.bestConflictRateTo98 === null ? '-' : pct(h.bestConflictRateTo98)} |`,
    `| 503 count (shed, Retry-After honoured) | ${n0(h.shed)} |`,
    `| requests the buyers gave up on (timeouts) | ${n0(h.timeouts)} |`,
    `| waiting time, join → admission, p50 / p90 / p99 / max | ${o.waitingRoom ? `${n1(h.waiting.p50)} / ${n1(h.waiting.p90)} / ${n1(h.waiting.p99)} / ${n1(h.waiting.max)} s (${n0(h.waiting.count)} admitted)` : 'n/a (no waiting room)'} |`,
    `| fairness: Spearman ρ(queue position, got a seat) | ${h.fairness === null ? 'n/a' : h.fairness.toFixed(3)} (${n0(h.bought)} of ${n0(h.buyers)} buyers bought; -1: strictly first come, first served; 0: no relation) |`,
    `| audit | ${r.audit.ok ? '**clean**' : '**FAILED**'} |`,
  ];
}

/** What the controller did, from the once-a-second samples of the admin queue view. */
function controllerLine(r: RunResult): string {
  const room = r.samples.room;
  const decisions = new Map<string, number>();
  for (const s of room) decisions.set(s.decision, (decisions.get(s.decision) ?? 0) + 1);
  const rates = room.map((s) => s.admitPerMinute);
  const latencies = room.map((s) => s.holdLatencyMs).filter((x): x is number => x !== null);
  return `- the admission controller (sampled ${room.length} times): rate ${n0(Math.min(...rates))}–${n0(Math.max(...rates))}/min; ` +
    `its measured hold latency ${latencies.length ? `${n1(Math.min(...latencies))}–${n1(Math.max(...latencies))} ms` : '-'}; ` +
    `samples by its last decision: ${[...decisions].map(([d, n]) => `${d} ${n}`).join(', ')}`;
}

export function reportMarkdown(r: RunResult, chartFiles: string[]): string {
  const o = r.opts;
  const h = headline(r);
  const rec = r.rec;
  const lines = [
    `# On-sale rehearsal: ${o.preset}`, '',
    `${n0(o.buyers)} buyers for ${n0(o.seats)} seats${o.shows > 1 ? ` in each of ${o.shows} shows` : ''}, arriving within ${o.arrivalSeconds} s; ` +
      `${o.waitingRoom ? `through the waiting room (admission ceiling ${n0(o.admitPerMinute)}/min)` : 'no waiting room'}; ` +
      `payments: ${pct(o.declineRate)} declined, ${pct(o.slowRate)} slow, ${pct(o.timeoutRate)} lost answers; chaos ${o.chaos ? 'on' : 'off'}; ` +
      `${pct(o.abandonRate)} abandon their hold; seed ${o.seed}. Service: ${r.service}.`, '',
    '## Headline', '', ...headlineTable(r, h), '',
    '## Audit', '', 'Read only through the public API and the payment simulator\'s list calls, after the service settled ' +
      `(${r.settleSeconds.toFixed(0)} s): ${n0(r.charges)} PaymentIntents, ${n0(r.refunds)} refunds.`, '',
    '| check | count | examples |', '|---|---|---|',
    ...r.audit.checks.map((c) => `| ${c.name} | ${c.count} | ${c.examples.join('; ') || '-'} |`), '',
    `Apart from the audit, ${foreignLine(r.audit.foreign)}.`, '',
    '## Charts', '', ...chartFiles.map((f) => `![${f}](${f})\n`),
    '## Latency per step (ms, every answer; timeouts count as their timeout)', '',
    '| step | answers | p50 | p90 | p99 | max |', '|---|---:|---:|---:|---:|---:|',
    ...[...rec.overall].filter(([, l]) => l.length > 0).map(([step, l]) => { const s = l.summary(); return `| ${step} | ${n0(s.count)} | ${n1(s.p50)} | ${n1(s.p90)} | ${n1(s.p99)} | ${n1(s.max)} |`; }), '',
    '## Answers seen', '', '| step and answer | count |', '|---|---:|',
    ...[...rec.statuses].sort((a, b) => a[0].localeCompare(b[0])).map(([k, v]) => `| ${k} | ${n0(v)} |`), '',
    '## The run', '',
    `- setup (service, show, ${n0(o.buyers)} synthetic buyers): ${r.setupSeconds.toFixed(0)} s; sale: ${r.saleSeconds.toFixed(0)} s; settling and audit: ${r.settleSeconds.toFixed(0)} s`,
    `- holds made ${n0(rec.totals.holds)}, abandoned ${n0(rec.totals.abandoned)}; bookings confirmed ${n0(rec.totals.bookings)}; admitted ${n0(rec.totals.admitted)}`,
    `- waiting list (${pct(o.waitlistRate)} of the buyers who find the show sold out with seats held join it): joined ${n0(rec.totals.waitlisted)}, offers received ${n0(rec.totals.offers)}`,
    ...(r.samples.room.length ? [controllerLine(r)] : []),
    `- service CPU: ${r.serviceCpuSeconds === null ? 'not measured (not started here)' : `${r.serviceCpuSeconds.toFixed(0)} s`}`,
    ownLoopLine(rec.ownStallMs),
    o.waitingRoom ? '- The edge is modelled: `GET /v1/shows/{id}/queue` (public, up to 2 s stale) is read once a second for all buyers, as a CDN would serve it; each buyer calls `admit` only once `serving` reached its position, honouring `retry_after_seconds`.' : '',
    o.originMaps ? '- Every buyer read the seat map from the service (`--origin-maps`).' : '- The seat map and sections summary (public, up to 2 s stale, ETag) were read through a modelled edge: one origin read per path a second, shared by the buyers asking in that second; the map latencies above are the origin\'s.',
    '',
  ];
  return lines.join('\n');
}

/** How late the buyers' own event loop ran: every latency in the report includes it. */
export function ownLoopLine(stalls: readonly number[]): string {
  if (stalls.length === 0) return "- the buyers' own event loop: not watched";
  let worst = 0;
  for (let i = 1; i < stalls.length; i++) if (stalls[i]! > stalls[worst]!) worst = i;
  const over = (ms: number) => stalls.filter((x) => x > ms).length;
  return `- the buyers' own event loop (every latency above is timed on it): late by at most ${n0(stalls[worst]!)} ms (second ${worst}); ` +
    `seconds with a stall over 100 ms: ${over(100)}, over 1 s: ${over(1000)}`;
}

export async function writeReport(r: RunResult): Promise<void> {
  mkdirSync(r.reportDir, { recursive: true });
  const files = charts(r);
  for (const [name, svg] of Object.entries(files)) writeFileSync(path.join(r.reportDir, name), svg);
  writeFileSync(path.join(r.reportDir, 'report.md'), reportMarkdown(r, Object.keys(files)));
}
