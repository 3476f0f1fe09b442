// Latency samples and percentiles, and the plain-text tables the benches print.

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

export function fixed(x: number, digits = 1): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '-';
}

/** Left-aligned first column, right-aligned others. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

export function envList(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (!raw) return fallback;
  const list = raw.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error(`${name} must be a comma-separated list of positive integers, got "${raw}"`);
  return list;
}
