// One small SVG line chart for the rehearsal's report: a time (or other numeric)
// x axis, one or two y axes, ticks at round numbers, a legend. No dependencies:
// the report must open in any browser or Markdown viewer.

export interface Series {
  name: string;
  points: readonly (readonly [number, number])[];
  /** Which y axis the series is read against (default left). */
  axis?: 'left' | 'right';
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  y2Label?: string;
  series: readonly Series[];
  width?: number;
  height?: number;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
const MARGIN = { top: 40, right: 70, bottom: 50, left: 70 };

const LEGEND_LINE = 18;
/** A legend entry's width: its swatch, its name at about 7.2 px a character (12 px sans-serif, wide letters counted), a gap. */
const legendWidth = (text: string) => 22 + Math.ceil(text.length * 7.2) + 18;

/**
 * Where each legend entry goes: one after the other by its own width, on as many lines
 * as it takes (equal slots made long names run into the next entry).
 */
export function legendLayout(texts: readonly string[], width: number): { x: number; line: number }[] {
  const at: { x: number; line: number }[] = [];
  let x = 0;
  let line = 0;
  for (const text of texts) {
    const w = legendWidth(text);
    if (x > 0 && x + w > width) { x = 0; line++; }
    at.push({ x, line });
    x += w;
  }
  return at;
}

/** A linear map from domain to range; a zero-width domain maps to the range's start. */
export function scale(domain: readonly [number, number], range: readonly [number, number]): (v: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  return (v) => (d1 === d0 ? r0 : r0 + ((v - d0) / (d1 - d0)) * (r1 - r0));
}

/** About `count` round tick values (1, 2 or 5 × 10^k apart) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0];
  if (max === min) max = min + 1;
  const raw = (max - min) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const label = (v: number) => (Math.abs(v) >= 10_000 ? `${+(v / 1000).toFixed(1)}k` : String(+v.toFixed(2)));

function extent(series: readonly Series[], pick: (p: readonly [number, number]) => number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) for (const p of s.points) { const v = pick(p); if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
  return lo === Infinity ? [0, 1] : [lo, hi];
}

export function lineChart(spec: ChartSpec): string {
  const width = spec.width ?? 860;
  const height = spec.height ?? 360;
  const left = spec.series.filter((s) => s.axis !== 'right');
  const right = spec.series.filter((s) => s.axis === 'right');
  const [x0, x1] = extent(spec.series, (p) => p[0]);
  const xTicks = niceTicks(x0, x1, 8);
  const yTicks = niceTicks(Math.min(0, extent(left, (p) => p[1])[0]), extent(left, (p) => p[1])[1], 5);
  const y2Ticks = niceTicks(Math.min(0, extent(right, (p) => p[1])[0]), extent(right, (p) => p[1])[1], 5);
  const legendTexts = spec.series.map((s) => `${s.name}${s.axis === 'right' ? ' (right)' : ''}`);
  const legend = legendLayout(legendTexts, width - MARGIN.left - MARGIN.right - 20);
  const top = MARGIN.top + LEGEND_LINE * Math.max(0, ...legend.map((l) => l.line));
  const plot = { x0: MARGIN.left, x1: width - MARGIN.right, y0: height - MARGIN.bottom, y1: top };
  const sx = scale([xTicks[0]!, xTicks[xTicks.length - 1]!], [plot.x0, plot.x1]);
  const sy = scale([yTicks[0]!, yTicks[yTicks.length - 1]!], [plot.y0, plot.y1]);
  const sy2 = scale([y2Ticks[0]!, y2Ticks[y2Ticks.length - 1]!], [plot.y0, plot.y1]);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(spec.title)}</text>`,
  ];
  for (const t of xTicks) {
    const x = sx(t).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${plot.y0}" y2="${plot.y1}" stroke="#eee"/>`, `<text x="${x}" y="${plot.y0 + 16}" text-anchor="middle">${label(t)}</text>`);
  }
  for (const t of yTicks) {
    const y = sy(t).toFixed(1);
    out.push(`<line x1="${plot.x0}" x2="${plot.x1}" y1="${y}" y2="${y}" stroke="#eee"/>`, `<text x="${plot.x0 - 6}" y="${y}" text-anchor="end" dy="4">${label(t)}</text>`);
  }
  if (right.length > 0) for (const t of y2Ticks) out.push(`<text x="${plot.x1 + 6}" y="${sy2(t).toFixed(1)}" dy="4">${label(t)}</text>`);
  out.push(
    `<rect x="${plot.x0}" y="${plot.y1}" width="${plot.x1 - plot.x0}" height="${plot.y0 - plot.y1}" fill="none" stroke="#333"/>`,
    `<text x="${(plot.x0 + plot.x1) / 2}" y="${height - 12}" text-anchor="middle">${esc(spec.xLabel)}</text>`,
    `<text transform="translate(16 ${(plot.y0 + plot.y1) / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  );
  if (right.length > 0 && spec.y2Label) out.push(`<text transform="translate(${width - 14} ${(plot.y0 + plot.y1) / 2}) rotate(90)" text-anchor="middle">${esc(spec.y2Label)}</text>`);
  spec.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const y = s.axis === 'right' ? sy2 : sy;
    const pts = s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1])).map((p) => `${sx(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`);
    if (pts.length > 0) out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8"${s.axis === 'right' ? ' stroke-dasharray="5 3"' : ''} points="${pts.join(' ')}"/>`);
    const lx = plot.x0 + 10 + legend[i]!.x;
    const ly = MARGIN.top + legend[i]!.line * LEGEND_LINE;
    out.push(`<line x1="${lx}" x2="${lx + 18}" y1="${ly - 8}" y2="${ly - 8}" stroke="${color}" stroke-width="3"${s.axis === 'right' ? ' stroke-dasharray="5 3"' : ''}/>`,
      `<text x="${lx + 22}" y="${ly - 4}">${esc(legendTexts[i]!)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
