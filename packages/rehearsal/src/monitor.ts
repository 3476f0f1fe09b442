// Once a second during the sale: the operators' view of the room (its admission
// rate and the controller's inputs, for the report's controller chart) and the
// show's seat counts; and the live progress display (a redrawn block on a
// terminal, plain lines otherwise, on stderr, with the children's lines above it).
import type { QueueEdge } from './edge.js';
import type { Recorder } from './recorder.js';
import { api } from './setup.js';
import { stderrLines } from './terminal.js';

export interface RoomSample {
  t: number;
  serving: number;
  waiting: number;
  admitted: number;
  admitPerMinute: number;
  ceilingPerMinute: number | null;
  holdLatencyMs: number | null;
  setPointMs: number | null;
  decision: string;
  reason: string;
}

export interface SeatSample { t: number; available: number; held: number; booked: number }

export interface Samples { room: RoomSample[]; seats: SeatSample[] }

export function startMonitor(o: { baseUrl: string; adminToken: string; showId: string | null; waitingRoom: boolean; rec: Recorder; edge: QueueEdge | null; seats: number; shows: number }): { samples: Samples; stop(): Promise<void> } {
  const samples: Samples = { room: [], seats: [] };
  let running = true;
  const t = () => (performance.now() - o.rec.startedAt) / 1000;
  const sample = async () => {
    const token = o.adminToken;
    const jobs: Promise<void>[] = [];
    if (o.waitingRoom && o.showId) {
      jobs.push(api(o.baseUrl, 'GET', `/v1/admin/shows/${o.showId}/queue`, { token }).then((r) => {
        if (r.status !== 200) return;
        const c = r.body.controller ?? {};
        samples.room.push({
          t: t(), serving: r.body.serving, waiting: r.body.waiting, admitted: r.body.admitted, admitPerMinute: r.body.admit_rate_per_minute,
          ceilingPerMinute: c.ceiling_per_minute ?? null, holdLatencyMs: c.hold_latency_ms ?? null,
          setPointMs: typeof c.set_point_ms === 'number' ? c.set_point_ms : null, decision: c.decision ?? '-', reason: c.reason ?? '-',
        });
      }, () => {}));
    }
    if (o.showId) {
      jobs.push(api(o.baseUrl, 'GET', `/v1/admin/shows/${o.showId}/stats`, { token }).then((r) => {
        if (r.status === 200) samples.seats.push({ t: t(), ...r.body.seats });
      }, () => {}));
    }
    await Promise.all(jobs);
  };
  const draw = () => {
    const r = o.rec;
    const s = r.second();
    const attempts = r.recent('holdAttempts', 5);
    const p99 = r.window(['hold', 'booking'], s - 5, s).summary().p99;
    const seats = samples.seats.at(-1);
    const sold = seats?.booked ?? r.totals.seatsSold;
    const lines = [
      `onsale ${s} s: arrived ${r.arrived}, done ${r.done}; sold ${sold} of ${o.seats * o.shows} seats; held ${seats?.held ?? r.heldNow}`,
      `  waiting ${o.edge?.status?.waiting ?? r.waitingNow}, admitted/min ${r.recent('admitted', 60)} (total ${r.totals.admitted}); holds/s ${r.recent('holds', 1)}; ` +
        `409 rate ${attempts ? ((100 * r.recent('conflicts', 5)) / attempts).toFixed(0) : '-'} %; 503s ${r.totals.shed}; timeouts ${r.totals.timeouts}; hold+booking p99 ${Number.isFinite(p99) ? p99.toFixed(0) : '-'} ms; buyers' loop late ≤ ${r.recentStallMs(5).toFixed(0)} ms`,
    ];
    stderrLines.progress(lines);
  };
  const loop = (async () => {
    while (running) {
      const next = performance.now() + 1000;
      await sample();
      draw();
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  })();
  return { samples, stop: async () => { running = false; await loop; stderrLines.done(); } };
}
