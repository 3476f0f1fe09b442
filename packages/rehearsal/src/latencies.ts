// Latency samples and their nearest-rank percentiles (shared by the benches and the rehearsal).

/** A growable array of latencies in milliseconds (no per-sample allocation). */
export class Latencies {
  private data = new Float64Array(1 << 16);
  length = 0;

  add(ms: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = ms;
  }

  addAll(other: Latencies): void {
    for (let i = 0; i < other.length; i++) this.add(other.data[i]!);
  }

  /** Percentiles of the samples (sorts a copy: the samples stay mergeable). */
  summary(): Percentiles {
    return percentiles(this.data.slice(0, this.length));
  }
}

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of samples (sorted in place). */
export function percentiles(samples: Float64Array): Percentiles {
  const s = samples.sort();
  const n = s.length;
  const at = (q: number) => (n === 0 ? NaN : s[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!);
  return { count: n, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: n ? s[n - 1]! : NaN };
}
