// Placed sections without a browser: planSections draws a placed section on its
// rectangle (the 1000 box stretched onto the plan) and rings the rest; the hall editor
// keeps a layout file's placements and sends them with the rows.
import { describe, expect, it } from 'vitest';
import { PLAN_HEIGHT, PLAN_WIDTH, placedShape, planSections } from '../../web/src/components/seatmap/sectionPlan.js';
import { readLayoutFile, toLayout } from '../../web/src/admin/layout.js';
import type { SectionSummary } from '../../web/src/api/types.js';

const summary = (section: string, plan?: SectionSummary['plan']): SectionSummary =>
  ({ section, available: 5, held: 0, booked: 0, min_price: 1000, max_price: 1000, ...(plan ? { plan } : {}) });

/** The numbers of an SVG path, as [x, y] pairs (for M/L paths). */
const corners = (d: string) => [...d.matchAll(/[ML]([\d.-]+) ([\d.-]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

describe('placed sections on the plan', () => {
  it('draws a placed rectangle stretched from the 1000 box onto the plan, its label at its centre', () => {
    const { path, centre } = placedShape({ x: 100, y: 200, w: 300, h: 100 });
    const sx = PLAN_WIDTH / 1000;
    const sy = PLAN_HEIGHT / 1000;
    expect(corners(path)).toEqual([[100 * sx, 200 * sy], [400 * sx, 200 * sy], [400 * sx, 300 * sy], [100 * sx, 300 * sy]].map(([x, y]) => [Number(x!.toFixed(1)), Number(y!.toFixed(1))]));
    expect(centre).toEqual([250 * sx, 250 * sy]);
  });

  it('turns a rectangle about its own centre', () => {
    const turned = corners(placedShape({ x: 400, y: 400, w: 200, h: 200, angle: 90 }).path);
    const straight = corners(placedShape({ x: 400, y: 400, w: 200, h: 200 }).path);
    // A square turned a quarter: the same corners, each moved one place on.
    expect(turned.map(String).sort()).toEqual(straight.map(String).sort());
    expect(turned[0]).toEqual(straight[1]);
  });

  it('rings only the sections not placed, and keeps every section once', () => {
    const plan = planSections([summary('101'), summary('102', { x: 0, y: 0, w: 100, h: 100 }), summary('201'), summary('202')]);
    expect(plan.sections.map((p) => p.summary.section).sort()).toEqual(['101', '102', '201', '202']);
    const byName = new Map(plan.sections.map((p) => [p.summary.section, p]));
    expect(byName.get('102')!.ring).toBe(-1);
    expect(byName.get('101')!.ring).toBe(0);
    expect(byName.get('202')!.ring).toBe(1);
    // Without placements, the same sections are all in rings.
    expect(planSections([summary('101'), summary('102')]).sections.every((p) => p.ring === 0)).toBe(true);
  });
});

describe('the hall editor and a layout file placing sections', () => {
  it('keeps the placements read and sends them with the rows', () => {
    const sections = [{ section: '101', plan: { x: 10, y: 20, w: 300, h: 100, angle: 15 } }];
    const read = readLayoutFile(JSON.stringify({ rows: [{ row: 'A', seats: 4, tier: 'standard', section: '101' }], sections }));
    if ('errors' in read) throw new Error(JSON.stringify(read.errors));
    expect(read.sections).toEqual(sections);
    expect(toLayout(read.rows, read.sections)).toEqual({ rows: [{ row: 'A', seats: 4, tier: 'standard', section: '101' }], sections });
    expect(toLayout(read.rows)).not.toHaveProperty('sections');
  });

  it('refuses a sections field that is not a list', () => {
    const read = readLayoutFile(JSON.stringify({ rows: [{ row: 'A', seats: 4, tier: 'standard' }], sections: { '101': {} } }));
    expect('errors' in read && read.errors.map((e) => e.path)).toEqual(['/layout/sections']);
  });
});
