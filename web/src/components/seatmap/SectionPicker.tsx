// A big hall's sections first: each a button with its free seats and price range, so the
// buyer opens one section's map rather than the whole stadium's.
import type { SectionSummary } from '../../api/types';
import { priceText } from './seatNames';

function priceRange(s: SectionSummary, currency: string): string {
  if (s.min_price === null || s.max_price === null) return '';
  return s.min_price === s.max_price
    ? priceText(s.min_price, currency)
    : `${priceText(s.min_price, currency)}–${priceText(s.max_price, currency)}`;
}

export function SectionPicker({ sections, currency, onChoose }: { sections: SectionSummary[]; currency: string; onChoose: (section: string) => void }) {
  return (
    <section aria-labelledby="sections-heading">
      <h2 id="sections-heading">Choose a section</h2>
      <ul class="section-grid">
        {sections.map((s) => {
          const total = s.available + s.held + s.booked;
          const soldOut = s.available === 0;
          const free = soldOut ? 'Sold out' : `Available: ${s.available.toLocaleString()} of ${total.toLocaleString()}`;
          const prices = priceRange(s, currency);
          return (
            <li key={s.section}>
              <button type="button" class={`section-button${soldOut ? ' sold-out' : ''}`} onClick={() => onChoose(s.section)}>
                <span class="section-name">Section {s.section}</span>
                <span>{free}</span>
                {prices && <span>{prices}</span>}
                <span class="section-meter" aria-hidden="true"><span style={{ width: `${total ? Math.round((100 * s.available) / total) : 0}%` }} /></span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
