// Seat numbers along the top of the map, sticking there however far it is scrolled down:
// one above each column whose seats all carry that number (a hall whose rows are centred
// with different numbering shows only the columns they agree on). When the map is zoomed
// out so far that every number would not fit, every fifth (and the first) is shown.
import { useMemo } from 'preact/hooks';
import { PITCH, type MapLayout } from './seatLayout';
import { columnNumbers } from './seatColumns';

const LABEL_PX = 24;

export function SeatNumbers({ layout, scale }: { layout: MapLayout; scale: number }) {
  const columns = useMemo(() => columnNumbers(layout), [layout]);
  const every = PITCH * scale >= LABEL_PX ? 1 : PITCH * scale * 2 >= LABEL_PX ? 2 : 5;
  return (
    <div class="seatmap-numbers" style={{ width: `${layout.width * scale}px` }} aria-hidden="true">
      {columns.filter((c) => c.number === 1 || c.number % every === 0).map((c) => (
        <span key={c.x} class="seatmap-number" style={{ left: `${c.x * scale}px` }}>{c.number}</span>
      ))}
    </div>
  );
}
