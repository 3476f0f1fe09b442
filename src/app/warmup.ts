// Warm-up before /readyz says ready: the first seconds of a sale must not be its
// worst. A fresh process has no database connections open (each costs a
// handshake and authentication when the first buyers need it), no statements
// prepared on them (PostgreSQL plans the claim and the map read, and compiles the
// claim's PL/pgSQL, per connection on first use), no seat maps or hall layouts in
// memory, and code the JIT has not compiled yet. `serve` warms all of them while
// /readyz answers 503 "warming up", within WARMUP_MS; past that bound it serves
// anyway and says so.
//
// Nothing durable is written: the claims name a show that does not exist (the
// functions answer show_not_found before any write), the maps are reads, and the
// injected requests are map reads. No hold is sent through the HTTP path: it would
// feed the purchase limit and the admission controller measurements that are not a
// sale's (a refusal in a fraction of a millisecond as the "usual" hold latency).
// The reads come from WARMUP_ADDRESS (src/http/logging.ts): logged at debug, and
// counted against no real client's rate limit.
import type { Database } from '../db/client.js';
import { claimBestSeats, claimSeats } from '../db/seatTransitions.js';
import { seatStates } from '../db/seats.js';
import { holdConnectionBriefly, showsAboutToSell } from '../db/warmup.js';
import type { Context } from './context.js';

/** A show id no show has (ids are `show_` and 24 hex digits): the claims stop at show_not_found. */
export const NO_SHOW = 'show_warmup_none';
const NO_USER = 'user_warmup_none';
/** Seat maps read into memory at most (the shows whose sale opened last or opens next). */
const SHOWS_MAX = 20;
/** Injected map reads per show: enough for the JIT to compile the route's path. */
const READS_PER_SHOW = 200;

export type WarmupPhase = 'cold' | 'warming' | 'warm' | 'cut short' | 'failed';

export interface WarmupReport {
  phase: WarmupPhase;
  ms: number;
  connections: number;
  statements: number;
  shows: number;
  requests: number;
  /** Why it ended early (its bound, or an error), when it did. */
  why: string | null;
}

/** Opens `n` connections of the pool at once: n statements in flight take n connections. */
async function openConnections(db: Database, n: number): Promise<number> {
  await Promise.all(Array.from({ length: n }, () => holdConnectionBriefly(db)));
  return n;
}

/** Runs each hot statement n times side by side, so each idle connection prepares it (the pool lends idle ones first). */
async function prepareHotStatements(db: Database, n: number, stopped: () => boolean): Promise<number> {
  const rounds: (() => Promise<unknown>)[] = [
    () => claimSeats(db, { showId: NO_SHOW, holdId: 'hold_warmup_none', userId: NO_USER, seats: ['A1'] }),
    () => claimBestSeats(db, { showId: NO_SHOW, holdId: 'hold_warmup_none', userId: NO_USER, count: 1, section: null, tier: null, maxPrice: null }),
    () => seatStates(db, NO_SHOW),
  ];
  let done = 0;
  for (const statement of rounds) {
    if (stopped()) break;
    await Promise.all(Array.from({ length: n }, () => statement()));
    done += n;
  }
  return done;
}

/** One instance's warm-up; `phase` is what /readyz reports. */
export class Warmup {
  phase: WarmupPhase = 'cold';
  report: WarmupReport | null = null;

  /** True unless a warm-up runs now: an instance that was never asked to warm up is ready as before. */
  get ready(): boolean {
    return this.phase !== 'warming';
  }

  /** Warms within `budgetMs` (0: not at all); never throws: a failed warm-up leaves a cold but serving instance. */
  /** `read`: one GET through the HTTP app in process (app.inject), answered like a client's. */
  async run(ctx: Context, read: (url: string, acceptEncoding: string) => Promise<unknown>, budgetMs: number): Promise<WarmupReport> {
    const started = performance.now();
    const tally = { connections: 0, statements: 0, shows: 0, requests: 0 };
    const end = (phase: WarmupPhase, why: string | null): WarmupReport => {
      this.phase = phase;
      this.report = { phase, ms: Math.round(performance.now() - started), ...tally, why };
      return this.report;
    };
    if (budgetMs <= 0) return end('warm', 'WARMUP_MS=0: skipped');
    this.phase = 'warming';
    let over = false;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'over'>((resolve) => {
      timer = setTimeout(() => { over = true; resolve('over'); }, budgetMs);
    });
    // A step that fails (a slow database at the start) is noted and the next one tried: each warms something of its own.
    let failure: string | null = null;
    const step = async <T>(fn: () => Promise<T>, otherwise: T): Promise<T> => {
      try {
        return await fn();
      } catch (err) {
        failure ??= err instanceof Error ? err.message : String(err);
        return otherwise;
      }
    };
    const work = (async () => {
      const n = ctx.config.poolSize;
      const dbs = [ctx.db, ...(ctx.inventory.single ? [] : ctx.inventory.all())];
      for (const db of dbs) {
        if (over) return;
        tally.connections += await step(() => openConnections(db, n), 0);
      }
      for (const db of ctx.inventory.all()) {
        if (over) return;
        tally.statements += await step(() => prepareHotStatements(db, n, () => over), 0);
      }
      const shows = over ? [] : await step(() => showsAboutToSell(ctx.db, SHOWS_MAX), []);
      // A cold path for a show nobody has (its 404) is warmed too: the first
      // requests of a sale are not all for a show the instance knows yet.
      for (const showId of [...shows, NO_SHOW]) {
        if (over) return;
        if (showId !== NO_SHOW && await step(async () => (await ctx.seatMaps.get(showId).answer) !== null, false)) tally.shows++;
        for (let i = 0; i < READS_PER_SHOW && !over; i++) {
          await read(`/v1/shows/${showId}/seats`, i % 2 ? 'gzip' : 'identity');
          tally.requests++;
        }
      }
    })();
    try {
      const outcome = await Promise.race([work.then(() => 'done' as const), bound]);
      if (outcome === 'over') return end('cut short', `WARMUP_MS (${budgetMs} ms) passed${failure ? `; a step failed: ${failure}` : ''}`);
      return failure ? end('failed', failure) : end('warm', null);
    } catch (err) {
      return end('failed', err instanceof Error ? err.message : String(err));
    } finally {
      clearTimeout(timer);
      // The work stops at its next step once `over`; what is still in flight is bounded by the pool's own bounds.
      work.catch(() => {});
    }
  }
}
