// Where each section of a big hall goes on its plan: rings of wedges around the stage.
// The ring comes from the section's name when every name starts with a number of three
// or more digits (101–112 the first ring, 201–212 the second: how stadiums number their
// tiers), else from its price (dearest nearest the stage). Within a ring, sections go
// clockwise from the top in the order of their names. A section the hall's layout places
// (its summary's `plan`: a rectangle in a 1000 × 1000 box, the stage at the centre) is
// drawn there instead, and the rings are made of the others. Pure: no DOM. (Imports carry
// `.js` so the tests, type-checked as Node ESM, can import this file too.)
import type { SectionSummary } from '../../api/types.js';

export const PLAN_WIDTH = 900;
export const PLAN_HEIGHT = 700;
export const STAGE = { width: 220, height: 110 };
const CENTRE = { x: PLAN_WIDTH / 2, y: PLAN_HEIGHT / 2 };
/** The bowl is wider than deep: each radius is stretched this much sideways. */
const STRETCH = { x: 1.25, y: 0.95 };
const FIRST_RADIUS = 150;
const SPAN = 180;
const GAP_DEG = 1.2;

export type Availability = 'many' | 'some' | 'few' | 'none';

export interface PlannedSection {
  summary: SectionSummary;
  /** Its ring (0 nearest the stage), or -1 when the layout places it. */
  ring: number;
  /** The wedge's SVG path. */
  path: string;
  /** Where its name goes. */
  labelX: number;
  labelY: number;
  /** Index of its price band (0 the dearest), for its colour. */
  band: number;
  availability: Availability;
}

export interface SectionPlan {
  sections: PlannedSection[];
  /** The distinct prices, dearest first: a band's legend. */
  bands: { min: number | null; max: number | null }[];
}

const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** Many: half or more free; some: a tenth or more; few: at least one; none: sold out. */
export function availabilityOf(s: SectionSummary): Availability {
  const total = s.available + s.held + s.booked;
  if (s.available === 0 || total === 0) return 'none';
  const share = s.available / total;
  return share >= 0.5 ? 'many' : share >= 0.1 ? 'some' : 'few';
}

const bandKey = (s: SectionSummary) => `${s.min_price ?? ''}-${s.max_price ?? ''}`;

/** Ring index of each section (0 nearest the stage). */
export function ringsOf(sections: readonly SectionSummary[], bandOf: (s: SectionSummary) => number): number[] {
  const numbers = sections.map((s) => /^(\d{3,})/.exec(s.section)?.[1]);
  if (numbers.every((n) => n !== undefined)) {
    const tiers = numbers.map((n) => Math.floor(Number(n) / 100));
    const order = [...new Set(tiers)].sort((a, b) => a - b);
    return tiers.map((t) => order.indexOf(t));
  }
  const bands = sections.map(bandOf);
  const order = [...new Set(bands)].sort((a, b) => a - b);
  return bands.map((b) => order.indexOf(b));
}

function point(radius: number, deg: number): [number, number] {
  const a = (deg * Math.PI) / 180;
  return [CENTRE.x + radius * STRETCH.x * Math.sin(a), CENTRE.y - radius * STRETCH.y * Math.cos(a)];
}

const f = (n: number) => n.toFixed(1);

function wedge(inner: number, outer: number, from: number, to: number): string {
  const [ax, ay] = point(outer, from);
  const [bx, by] = point(outer, to);
  const [cx, cy] = point(inner, to);
  const [dx, dy] = point(inner, from);
  const large = to - from > 180 ? 1 : 0;
  return `M${f(ax)} ${f(ay)}A${f(outer * STRETCH.x)} ${f(outer * STRETCH.y)} 0 ${large} 1 ${f(bx)} ${f(by)}`
    + `L${f(cx)} ${f(cy)}A${f(inner * STRETCH.x)} ${f(inner * STRETCH.y)} 0 ${large} 0 ${f(dx)} ${f(dy)}Z`;
}

/** The layout's box, stretched onto the plan (its centre on the stage's). */
export const LAYOUT_BOX = 1000;

/** A placed section's rectangle, turned about its centre, in plan coordinates. */
export function placedShape(plan: NonNullable<SectionSummary['plan']>): { path: string; centre: [number, number] } {
  const sx = PLAN_WIDTH / LAYOUT_BOX;
  const sy = PLAN_HEIGHT / LAYOUT_BOX;
  const cx = plan.x + plan.w / 2;
  const cy = plan.y + plan.h / 2;
  const a = ((plan.angle ?? 0) * Math.PI) / 180;
  const corners = [[plan.x, plan.y], [plan.x + plan.w, plan.y], [plan.x + plan.w, plan.y + plan.h], [plan.x, plan.y + plan.h]].map(([x, y]) => {
    // Turned in the box (where the layout said it), then stretched onto the plan.
    const dx = x! - cx;
    const dy = y! - cy;
    return [(cx + dx * Math.cos(a) - dy * Math.sin(a)) * sx, (cy + dx * Math.sin(a) + dy * Math.cos(a)) * sy] as const;
  });
  const path = corners.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${f(x)} ${f(y)}`).join('') + 'Z';
  return { path, centre: [cx * sx, cy * sy] };
}

export function planSections(all: readonly SectionSummary[]): SectionPlan {
  const sections = all.filter((s) => !s.plan);
  const placed = all.filter((s) => s.plan);
  // Price bands, dearest first (a section without a price last).
  const keys = [...new Map(all.map((s) => [bandKey(s), s])).values()]
    .sort((a, b) => (b.max_price ?? -1) - (a.max_price ?? -1) || (b.min_price ?? -1) - (a.min_price ?? -1));
  const bandIndex = new Map(keys.map((s, i) => [bandKey(s), i]));
  const bandOf = (s: SectionSummary) => bandIndex.get(bandKey(s))!;
  const rings = ringsOf(sections, bandOf);
  const ringCount = Math.max(1, ...rings.map((r) => r + 1));
  const depth = SPAN / ringCount;
  const planned: PlannedSection[] = [];
  for (let ring = 0; ring < ringCount; ring++) {
    const members = sections.filter((_, i) => rings[i] === ring).sort((a, b) => byName(a.section, b.section));
    const inner = FIRST_RADIUS + ring * depth + 4;
    const outer = FIRST_RADIUS + (ring + 1) * depth - 4;
    const step = 360 / members.length;
    members.forEach((s, k) => {
      // A lone section is a whole ring less a hair (an arc cannot close on itself).
      const from = k * step - step / 2 + (members.length > 1 ? GAP_DEG / 2 : 0.5);
      const to = (k + 1) * step - step / 2 - (members.length > 1 ? GAP_DEG / 2 : 0.5);
      const [labelX, labelY] = point((inner + outer) / 2, k * step);
      planned.push({ summary: s, ring, path: wedge(inner, outer, from, to), labelX, labelY, band: bandOf(s), availability: availabilityOf(s) });
    });
  }
  for (const s of placed) {
    const { path, centre } = placedShape(s.plan!);
    // The name sits a little above the centre: its second line ("2,497 free") goes below.
    planned.push({ summary: s, ring: -1, path, labelX: centre[0], labelY: centre[1] - 4, band: bandOf(s), availability: availabilityOf(s) });
  }
  return { sections: planned, bands: keys.map((s) => ({ min: s.min_price, max: s.max_price })) };
}
