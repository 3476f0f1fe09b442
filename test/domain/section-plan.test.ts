// A layout's optional section placements: checked against its rows and the plan's box.
import { describe, expect, it } from 'vitest';
import { checkSectionPlan, PLAN_BOX, type Layout, type SectionPlacement } from '../../src/domain/layout.js';
import { DomainError } from '../../src/domain/errors.js';

const rows: Layout['rows'] = [
  { row: 'A', seats: 4, tier: 'lower', section: '101' },
  { row: 'B', seats: 4, tier: 'lower', section: '101' },
  { row: 'A', seats: 4, tier: 'upper', section: '201' },
];
const at = (x: number, y: number, w = 100, h = 80, angle?: number): SectionPlacement => ({ x, y, w, h, ...(angle === undefined ? {} : { angle }) });

/** The field paths of the VALIDATION_FAILED the layout is refused with. */
function refusal(layout: Layout): string[] {
  try {
    checkSectionPlan(layout);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const e = err as DomainError;
    expect(e.code).toBe('VALIDATION_FAILED');
    return ((e.extensions.errors ?? []) as { path: string }[]).map((f) => f.path);
  }
  throw new Error('the layout was accepted');
}

describe('checkSectionPlan', () => {
  it('gives nothing for a layout without placements', () => {
    expect(checkSectionPlan({ rows }).size).toBe(0);
    expect(checkSectionPlan({ rows, sections: [] }).size).toBe(0);
  });

  it('keeps each placement by section, the angle only when it turns', () => {
    const plan = checkSectionPlan({ rows, sections: [{ section: '101', plan: at(100, 50, 200, 120, 0) }, { section: '201', plan: at(0, 0, PLAN_BOX, 10, -30) }] });
    expect(Object.fromEntries(plan)).toEqual({ '101': { x: 100, y: 50, w: 200, h: 120 }, '201': { x: 0, y: 0, w: PLAN_BOX, h: 10, angle: -30 } });
  });

  it('refuses a section no row has, with its path', () => {
    expect(refusal({ rows, sections: [{ section: '101', plan: at(1, 1) }, { section: '999', plan: at(1, 1) }] })).toEqual(['/layout/sections/1/section']);
  });

  it('refuses a section placed twice', () => {
    expect(refusal({ rows, sections: [{ section: '201', plan: at(1, 1) }, { section: '201', plan: at(500, 500) }] })).toEqual(['/layout/sections/1/section']);
  });

  it('refuses a rectangle leaving the box, an empty one and a wild angle', () => {
    expect(refusal({ rows, sections: [{ section: '101', plan: at(-1, 0) }] })).toEqual(['/layout/sections/0/plan/x']);
    expect(refusal({ rows, sections: [{ section: '101', plan: at(0, 1001) }] })).toContain('/layout/sections/0/plan/y');
    expect(refusal({ rows, sections: [{ section: '101', plan: at(950, 0, 100) }] })).toEqual(['/layout/sections/0/plan/w']);
    expect(refusal({ rows, sections: [{ section: '101', plan: at(0, 950, 10, 60) }] })).toEqual(['/layout/sections/0/plan/h']);
    expect(refusal({ rows, sections: [{ section: '101', plan: at(0, 0, 0, 10) }] })).toEqual(['/layout/sections/0/plan/w']);
    expect(refusal({ rows, sections: [{ section: '101', plan: at(0, 0, 10, -5) }] })).toEqual(['/layout/sections/0/plan/h']);
    expect(refusal({ rows, sections: [{ section: '101', plan: at(0, 0, 10, 10, 181) }] })).toEqual(['/layout/sections/0/plan/angle']);
    expect(refusal({ rows, sections: [{ section: '101', plan: { x: Number.NaN, y: 0, w: 1, h: 1 } }] })).toEqual(['/layout/sections/0/plan/x']);
  });

  it('names every fault at once', () => {
    expect(refusal({ rows, sections: [{ section: '7', plan: at(0, 0) }, { section: '101', plan: at(0, 0, 10, 10, -200) }] }))
      .toEqual(['/layout/sections/0/section', '/layout/sections/1/plan/angle']);
  });
});
