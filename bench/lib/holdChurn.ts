// A background load of holds and releases at a fixed rate through the public API,
// so a show's seats keep changing while something else is measured (the seat map
// is then rebuilt on changing data at every cache refresh). Each tick, the next
// buyer in turn releases their hold if they have one, or holds `seatsPerHold`
// random seats; a buyer still waiting for an answer skips their turn.
import { performance } from 'node:perf_hooks';
import { call, type Buyer } from './api.js';

export interface ChurnCounts {
  holds: number;
  taken: number;
  releases: number;
  errors: number;
  skipped: number;
  /** A sample error answer. */
  lastError: string;
}

export interface HoldChurn {
  /** Counts since the last start. */
  readonly counts: ChurnCounts;
  /** Seconds it ran since the last start (until stop). */
  seconds(): number;
  start(): void;
  /** Stops ticking and releases every hold it still has. */
  stop(): Promise<void>;
}

export function holdChurn(o: { baseUrl: string; showId: string; buyers: Buyer[]; seats: readonly string[]; perSecond: number; seatsPerHold?: number }): HoldChurn {
  const perHold = o.seatsPerHold ?? 2;
  const state = o.buyers.map((b) => ({ b, holdId: null as string | null, busy: false }));
  const counts: ChurnCounts = { holds: 0, taken: 0, releases: 0, errors: 0, skipped: 0, lastError: '' };
  let timer: NodeJS.Timeout | null = null;
  let next = 0;
  let startedAt = 0;
  let stoppedAt = 0;
  const inFlight = new Set<Promise<void>>();

  const fail = (what: string) => {
    counts.errors++;
    counts.lastError = what.slice(0, 300);
  };
  const turn = (s: (typeof state)[number]) => (async () => {
    if (s.holdId) {
      const r = await call(o.baseUrl, 'DELETE', `/v1/holds/${s.holdId}`, { token: s.b.token });
      if (r.status === 204) counts.releases++;
      else fail(`DELETE hold: ${r.status} ${r.text}`);
      s.holdId = null;
      return;
    }
    const seats = new Set<string>();
    while (seats.size < perHold) seats.add(o.seats[Math.floor(Math.random() * o.seats.length)]!);
    const r = await call(o.baseUrl, 'POST', `/v1/shows/${o.showId}/holds`, { body: { seats: [...seats] }, token: s.b.token });
    if (r.status === 201) {
      counts.holds++;
      s.holdId = r.body.hold_id as string;
    } else if (r.status === 409 && r.body?.code === 'SEAT_UNAVAILABLE') counts.taken++;
    else fail(`POST hold: ${r.status} ${r.text}`);
  })().catch((err: Error) => fail(err.message));

  const tick = () => {
    const s = state[next++ % state.length]!;
    if (s.busy) {
      counts.skipped++;
      return;
    }
    s.busy = true;
    const p = turn(s).finally(() => {
      s.busy = false;
      inFlight.delete(p);
    });
    inFlight.add(p);
  };

  return {
    counts,
    seconds: () => ((stoppedAt || performance.now()) - startedAt) / 1000,
    start() {
      if (timer) return;
      Object.assign(counts, { holds: 0, taken: 0, releases: 0, errors: 0, skipped: 0, lastError: '' });
      startedAt = performance.now();
      stoppedAt = 0;
      timer = setInterval(tick, 1000 / o.perSecond);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      stoppedAt = performance.now();
      await Promise.all([...inFlight]);
      for (const s of state) if (s.holdId) await turn(s);
    },
  };
}
