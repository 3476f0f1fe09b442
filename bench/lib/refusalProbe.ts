// The raw baseline of a 503 in bench:overload: a steady trickle of holds sent to the
// bare refusing server (bareServer.ts refuse), which answers 503 OVERLOADED from its
// first handler with no work at all, from the buyers' own event loop and the way a
// buyer sends (undici keep-alive, the same headers, the body read before the clock
// stops). What it measures is what any 503 costs as the buyers see it on these
// cores, in the same seconds as the run it runs beside.
import { Agent, request } from 'undici';
import { Latencies } from './stats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RefusalProbe {
  /** Each answered probe: when it was sent (performance.now()) and how long its 503 took, ms. */
  private readonly answers: { at: number; ms: number }[] = [];
  failures = 0;
  private readonly agent = new Agent({ connections: 16, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
  private running = true;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: Promise<void>;

  /** Sends one hold every `everyMs` (±20 %) until stopped. */
  constructor(private readonly origin: string, everyMs: number, private readonly token: string) {
    this.loop = (async () => {
      while (this.running) {
        const p = this.one().finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
        await sleep(everyMs * (0.8 + 0.4 * Math.random()));
      }
    })();
  }

  private async one(): Promise<void> {
    const t0 = performance.now();
    try {
      const res = await request(`${this.origin}/v1/shows/probe/holds`, {
        method: 'POST', dispatcher: this.agent, signal: AbortSignal.timeout(3000),
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ seats: ['A1', 'A2'] }),
      });
      await res.body.text();
      if (res.statusCode === 503) this.answers.push({ at: t0, ms: performance.now() - t0 });
      else this.failures++;
    } catch {
      this.failures++;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all(this.inFlight);
    await this.agent.close();
  }

  get count(): number { return this.answers.length; }

  /** Every probe's latency. */
  all(): Latencies {
    const l = new Latencies();
    for (const a of this.answers) l.add(a.ms);
    return l;
  }

  /** The probes sent within `aroundMs` of one of `times` (performance.now()): the same moments as those. */
  near(times: readonly number[], aroundMs: number): Latencies {
    const sorted = [...times].sort((x, y) => x - y);
    const l = new Latencies();
    let i = 0;
    for (const a of [...this.answers].sort((x, y) => x.at - y.at)) {
      while (i < sorted.length && sorted[i]! < a.at - aroundMs) i++;
      if (i < sorted.length && sorted[i]! <= a.at + aroundMs) l.add(a.ms);
    }
    return l;
  }
}
