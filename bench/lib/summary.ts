// The machine-readable line each bench leaves for `npm run bench` (bench/all.ts):
// when BENCH_SUMMARY_FILE names a file, every figure is appended to it as one JSON
// line. The bench's own tables stay as they are; without the variable nothing is written.
import { appendFileSync } from 'node:fs';

export interface SummaryFigure {
  bench: string;
  figure: string;
  value: number;
  unit: string;
  /** The same figure of the baseline measured in the same run; null where the figure has none. */
  baseline: number | null;
  baseline_label: string;
  /** value / baseline (null without a baseline). */
  ratio?: number | null;
  /** What the figure must be, in words (e.g. "ratio <= 2.5"), and whether this run met it. */
  goal?: string;
  met?: boolean;
}

/** Appends each figure to BENCH_SUMMARY_FILE (if set), computing the ratio where both numbers are known. */
export function writeSummary(figures: SummaryFigure[]): void {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (!file) return;
  const lines = figures.map((f) => {
    const ratio = f.ratio !== undefined ? f.ratio
      : f.baseline !== null && Number.isFinite(f.value) && Number.isFinite(f.baseline) && f.baseline !== 0 ? f.value / f.baseline : null;
    return JSON.stringify({ ...f, value: finite(f.value), baseline: f.baseline === null ? null : finite(f.baseline), ratio: ratio === null ? null : finite(ratio) });
  });
  appendFileSync(file, lines.map((l) => `${l}\n`).join(''));
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);
