// A live drawing of the hall being edited: rows of seats, coloured by tier, grouped by
// section; accessible seats ringed. Large halls are drawn one bar per row.
import type { JSX } from 'preact';
import type { DraftRow } from './layout';
import { seatNumbers } from './layout';

// Distinct tier colours (contrast-checked against white).
const PALETTE = ['#1e6fd9', '#b4006e', '#1b7f3b', '#a15c00', '#6a3fb5', '#00747a', '#b3261e', '#4d5b00'];
const SEAT = 12;
const GAP = 3;
const LABEL_W = 44;
const MAX_DRAWN_SEATS = 4000;

interface PreviewRow { label: string; numbers: number[]; tier: string; accessible: Set<number> }

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;

export function tierColours(tiers: readonly string[]): Map<string, string> {
  return new Map(tiers.map((t, i) => [t, PALETTE[i % PALETTE.length]!]));
}

export function LayoutPreview({ rows }: { rows: readonly DraftRow[] }) {
  const sections = new Map<string, PreviewRow[]>();
  const tierCounts = new Map<string, number>();
  let total = 0;
  for (const r of rows) {
    const numbers = seatNumbers(r.seats);
    if (!numbers || !r.row.trim()) continue;
    const tier = r.tier.trim() || '(no tier)';
    const acc = new Set((r.accessible.match(/\d+/g) ?? []).map(Number));
    const key = r.section.trim();
    if (!sections.has(key)) sections.set(key, []);
    sections.get(key)!.push({ label: r.row.trim(), numbers, tier, accessible: acc });
    tierCounts.set(tier, (tierCounts.get(tier) ?? 0) + numbers.length);
    total += numbers.length;
  }
  const colours = tierColours([...tierCounts.keys()]);
  const bars = total > MAX_DRAWN_SEATS;
  // Loops, not Math.max(...list): a row may list tens of thousands of seats.
  let widest = 1;
  for (const r of [...sections.values()].flat()) {
    if (bars) widest = Math.max(widest, r.numbers.length);
    else for (const n of r.numbers) if (n > widest) widest = n;
  }
  const unit = bars ? Math.max(0.02, 600 / widest) : SEAT + GAP;
  const width = LABEL_W + Math.max(widest * unit, 120) + 8;

  // Thousands of rows: thin unlabelled bars, so the drawing stays a few screens tall.
  const rowCount = [...sections.values()].reduce((n, list) => n + list.length, 0);
  const rowH = bars && rowCount > 200 ? 3 : SEAT;
  let y = 0;
  const parts: JSX.Element[] = [];
  for (const [section, list] of sections) {
    if (section) {
      y += 16;
      parts.push(<text key={`s-${section}`} x={0} y={y} class="preview-section">Section {section}</text>);
      y += 6;
    }
    for (const r of list) {
      const cy = y + rowH / 2;
      if (rowH >= SEAT) parts.push(<text key={`l-${section}-${r.label}-${y}`} x={0} y={cy + 4} class="preview-row">{r.label}</text>);
      const fill = colours.get(r.tier)!;
      if (bars) {
        parts.push(<rect key={`b-${section}-${r.label}-${y}`} x={LABEL_W} y={y} width={r.numbers.length * unit} height={rowH} fill={fill} />);
      } else {
        for (const n of r.numbers) {
          const x = LABEL_W + (n - 1) * unit;
          parts.push(<rect key={`${section}-${r.label}-${n}-${y}`} x={x} y={y} width={SEAT} height={SEAT} rx={3} fill={fill}
            stroke={r.accessible.has(n) ? '#000' : 'none'} stroke-width={r.accessible.has(n) ? 2 : 0} />);
        }
      }
      y += rowH + (rowH >= SEAT ? GAP * 2 : 1);
    }
  }
  const height = Math.max(y + 4, 24);
  const summary = total === 0
    ? 'Hall preview: no seats yet.'
    : `Hall preview: ${plural(total, 'seat')} in ${plural([...sections.values()].flat().length, 'row')}`
      + `${sections.size > 1 || !sections.has('') ? `, ${sections.size} sections` : ''}; `
      + [...tierCounts].map(([t, n]) => `${t} ${n.toLocaleString()}`).join(', ') + '.';

  return (
    <figure class="layout-preview">
      <div class="preview-scroll" tabIndex={0} role="region" aria-label="Hall drawing (scrolls)">
        <svg role="img" aria-label={summary} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
          {parts}
        </svg>
      </div>
      <figcaption>
        <p>{summary}{bars ? ' Large hall: one bar per row.' : ''}</p>
        <ul class="preview-legend" aria-label="Tiers">
          {[...tierCounts].map(([t, n]) => (
            <li key={t}><span class="swatch" style={{ background: colours.get(t) }} aria-hidden="true" />{t}: {n.toLocaleString()} seats</li>
          ))}
          {!bars && total > 0 && <li><span class="swatch accessible" aria-hidden="true" />outlined: accessible seat</li>}
        </ul>
      </figcaption>
    </figure>
  );
}
