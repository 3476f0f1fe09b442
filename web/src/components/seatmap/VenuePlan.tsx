// A big hall drawn as a plan: its sections in rings around the stage (see sectionPlan.ts),
// each a link and a keyboard stop, its colour its price band and its shade how many seats
// are left (dark: plenty; pale: few; grey: sold out).
import { useMemo } from 'preact/hooks';
import type { SectionSummary } from '../../api/types';
import { priceText } from './seatNames';
import { PLAN_HEIGHT, PLAN_WIDTH, STAGE, planSections, type Availability } from './sectionPlan';
import '../../styles/venuePlan.css';

const BANDS = 6;
const SHADES: [Availability, string][] = [['many', 'Half or more free'], ['some', 'Some free'], ['few', 'Few free'], ['none', 'Sold out']];

function priceRange(min: number | null, max: number | null, currency: string): string {
  if (min === null || max === null) return 'no price';
  return min === max ? priceText(min, currency) : `${priceText(min, currency)}–${priceText(max, currency)}`;
}

/** What a section's wedge says: "2,497 free" or "sold out". */
const freeText = (s: SectionSummary) => (s.available === 0 ? 'sold out' : `${s.available.toLocaleString('en')} free`);

/** "Section 102, 48 free of 50 seats, €65.00": a section's accessible name, its visible words in it. */
export function sectionName(s: SectionSummary, currency: string): string {
  const total = s.available + s.held + s.booked;
  const free = s.available === 0 ? 'sold out' : `${freeText(s)} of ${total.toLocaleString('en')} seats`;
  return `Section ${s.section}, ${free}, ${priceRange(s.min_price, s.max_price, currency)}`;
}

export function VenuePlan({ sections, currency, facing, hrefOf, onChoose }: {
  sections: SectionSummary[]; currency: string; facing: string;
  hrefOf: (section: string) => string; onChoose: (section: string) => void;
}) {
  const plan = useMemo(() => planSections(sections), [sections]);
  const open = (e: MouseEvent, section: string) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    onChoose(section);
  };
  return (
    <section class="venue-plan" aria-labelledby="sections-heading">
      <h2 id="sections-heading">Choose a section</h2>
      <svg viewBox={`0 0 ${PLAN_WIDTH} ${PLAN_HEIGHT}`} role="group" aria-label={`Plan of the venue: ${sections.length} sections around the ${facing.toLowerCase()}`}>
        <g aria-hidden="true">
          <rect class="plan-stage" x={(PLAN_WIDTH - STAGE.width) / 2} y={(PLAN_HEIGHT - STAGE.height) / 2} width={STAGE.width} height={STAGE.height} rx={10} />
          <text class="plan-stage-label" x={PLAN_WIDTH / 2} y={PLAN_HEIGHT / 2 + 8}>{facing}</text>
        </g>
        {plan.sections.map((p) => (
          <a key={p.summary.section} href={hrefOf(p.summary.section)} class={`plan-section band-${p.band % BANDS} ${p.availability}`}
            aria-label={sectionName(p.summary, currency)} onClick={(e) => open(e as unknown as MouseEvent, p.summary.section)}>
            <path d={p.path} data-section={p.summary.section} />
            {/* One text: axe reads its two lines as the words the name must contain. */}
            <text x={p.labelX} y={p.labelY}>
              <tspan class="plan-name">{p.summary.section}</tspan> <tspan class="plan-free" x={p.labelX} dy={20}>{freeText(p.summary)}</tspan>
            </text>
          </a>
        ))}
      </svg>
      <div class="plan-legend">
        <ul aria-label="Prices">
          {plan.bands.map((b, i) => (
            <li key={i}><svg width="18" height="18" aria-hidden="true"><rect class={`band-${i % BANDS} many`} width="18" height="18" rx="3" /></svg>{priceRange(b.min, b.max, currency)}</li>
          ))}
        </ul>
        <ul aria-label="Seats free">
          {SHADES.map(([shade, words]) => (
            <li key={shade}><svg width="18" height="18" aria-hidden="true"><rect class={`band-0 ${shade}`} width="18" height="18" rx="3" /></svg>{words}</li>
          ))}
        </ul>
      </div>
    </section>
  );
}
