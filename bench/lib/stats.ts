// Latency samples and percentiles (@boxoffice/rehearsal's), and the plain-text tables the benches print.

export { Latencies, percentiles, type Percentiles } from '@boxoffice/rehearsal';

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

export function envNumber(name: string, fallback: number, o: { zero?: boolean } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !o.zero)) throw new Error(`${name} must be a positive number${o.zero ? ' or 0' : ''}, got "${raw}"`);
  return n;
}

export function envList(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (!raw) return fallback;
  const list = raw.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error(`${name} must be a comma-separated list of positive integers, got "${raw}"`);
  return list;
}
