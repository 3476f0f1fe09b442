// What the map's shapes and tints mean: seat status by shape and colour, the wheelchair
// mark, and each price tier's tint with its price.
import type { ComponentChildren } from 'preact';
import type { SeatStatus } from '../../api/types';
import { StatusShape } from './SeatGlyph';
import { priceText } from './seatNames';

const STATUSES: { status: SeatStatus; selected?: boolean; accessible?: boolean; mine?: boolean; text: string }[] = [
  { status: 'available', text: 'Available' },
  { status: 'available', selected: true, text: 'Your selection' },
  { status: 'held', mine: true, text: 'Held by you' },
  { status: 'held', text: 'Held by someone else' },
  { status: 'booked', text: 'Booked' },
  { status: 'available', accessible: true, text: 'Wheelchair accessible' },
];

function Swatch({ children }: { children: ComponentChildren }) {
  return <svg class="legend-swatch" viewBox="-14 -14 28 28" width="24" height="24" aria-hidden="true">{children}</svg>;
}

export function SeatLegend({ tiers, currency, holding }: { tiers: { tier: string; price: number; index: number }[]; currency: string; holding: boolean }) {
  return (
    <div class="seat-legend">
      <h2 class="visually-hidden">Legend</h2>
      <ul>
        {STATUSES.filter((s) => holding || !s.mine).map((s) => (
          <li key={s.text}>
            <Swatch><StatusShape status={s.status} selected={Boolean(s.selected)} accessible={Boolean(s.accessible)} mine={Boolean(s.mine)} /></Swatch>
            {s.text}
          </li>
        ))}
      </ul>
      <ul>
        {tiers.map((t) => (
          <li key={t.tier}>
            <Swatch><rect class={`seatmap-band tier-${t.index}`} x={-12} y={-10} width={24} height={20} rx={5} /></Swatch>
            <span class="tier-name">{t.tier}</span> {priceText(t.price, currency)}
          </li>
        ))}
      </ul>
    </div>
  );
}
