// One seat on the map: its shape says its status (circle free, filled circle with a tick
// selected, diamond held, cross booked), a wheelchair mark says accessible; colours
// repeat the shape's meaning. The whole cell around it takes a click or a tap (the shapes
// are a third of that on a phone). Redrawn only when its own data changes.
import { Component } from 'preact';
import type { Seat } from '../../api/types';
import { seatLabel } from './seatNames';
import { PITCH, ROW_HEIGHT } from './seatLayout';

export interface SeatGlyphProps {
  seat: Seat;
  x: number;
  y: number;
  selected: boolean;
  tabbable: boolean;
  currency: string;
  /** Held by this buyer (a hold made in this tab). */
  mine: boolean;
}

/** A small wheelchair: head, back and seat, wheel. Drawn around (0, 0), about 12 units. */
const WHEELCHAIR = 'M-1.5 -3.5 v4 h4 l1.5 3.5 M-3.2 -1.2 a4 4 0 1 0 5.7 4.6';

export function StatusShape({ status, selected, accessible, mine = false }: { status: Seat['status']; selected: boolean; accessible: boolean; mine?: boolean }) {
  if (selected) {
    return (
      <>
        <circle r={10} class="seat-shape selected" />
        {accessible
          ? <path d={WHEELCHAIR} class="seat-mark on-dark" />
          : <path d="M-5 0 l3.5 3.5 l6.5 -7" class="seat-mark on-dark" />}
        {accessible && <circle cx={-1.5} cy={-6} r={1.4} class="seat-head on-dark" />}
      </>
    );
  }
  const mark = accessible && (
    <>
      <path d={WHEELCHAIR} class={`seat-mark ${status === 'held' ? 'on-dark' : ''}`} />
      <circle cx={-1.5} cy={-6} r={1.4} class={`seat-head ${status === 'held' ? 'on-dark' : ''}`} />
    </>
  );
  if (status === 'held') return <><rect x={-8} y={-8} width={16} height={16} transform="rotate(45)" class={`seat-shape held${mine ? ' mine' : ''}`} />{mark}</>;
  if (status === 'booked') return <path d="M-7 -7 L7 7 M7 -7 L-7 7" class="seat-shape booked" />;
  return <><circle r={10} class="seat-shape available" />{mark}</>;
}

export class SeatGlyph extends Component<SeatGlyphProps> {
  override shouldComponentUpdate(next: SeatGlyphProps): boolean {
    const p = this.props;
    return next.seat !== p.seat || next.selected !== p.selected || next.tabbable !== p.tabbable || next.x !== p.x || next.y !== p.y || next.currency !== p.currency || next.mine !== p.mine;
  }

  override render({ seat, x, y, selected, tabbable, currency, mine }: SeatGlyphProps) {
    const unavailable = seat.status !== 'available' || seat.price === null;
    return (
      <g
        class="seat"
        transform={`translate(${x} ${y})`}
        role="checkbox"
        aria-checked={selected}
        aria-disabled={unavailable && !selected ? true : undefined}
        aria-label={seatLabel(seat, currency, selected, mine)}
        tabindex={tabbable ? 0 : -1}
        data-seat={seat.seat}
        data-status={selected ? 'selected' : mine && seat.status === 'held' ? 'mine' : seat.status}
      >
        <circle r={13} class="seat-ring" />
        <StatusShape status={seat.status} selected={selected} accessible={Boolean(seat.accessible)} mine={mine} />
        <rect class="seat-hit" x={-PITCH / 2} y={-ROW_HEIGHT / 2} width={PITCH} height={ROW_HEIGHT} />
      </g>
    );
  }
}
