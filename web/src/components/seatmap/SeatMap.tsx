// The seat map drawn as SVG. Tab enters it at one seat (roving tabindex), arrow keys move
// between seats (Home/End: the row's ends), Enter or Space picks; a click or tap anywhere
// in a seat's cell picks too. Rows are tinted by price tier, and their letters stay at
// both edges of the view, the seat numbers at its top, however the map is scrolled
// (sticky, outside the SVG). Zooming
// (the buttons, or two fingers) keeps the seat last tapped, or the point between the
// fingers, where it was on screen.
import { useMemo, useRef, useState } from 'preact/hooks';
import type { Seat } from '../../api/types';
import { layoutSeats, seatToward, type MapLayout } from './seatLayout';
import { SeatGlyph } from './SeatGlyph';
import { SeatNumbers } from './SeatNumbers';
import { useMapZoom } from './mapZoom';
import '../../styles/seatmap.css';

export interface SeatMapProps {
  seats: Seat[];
  selected: ReadonlySet<string>;
  /** Seats in this buyer's own holds. */
  mine: ReadonlySet<string>;
  currency: string;
  /** Tier name → its colour's index in the legend. */
  tierIndex: (tier: string) => number;
  /** "Screen" or "Stage": what the rows face. */
  facing: string;
  /** The map's accessible name, e.g. "Seats" or "Seats in section 101". */
  label: string;
  onPick: (seat: Seat) => void;
}

function RowLetters({ layout, scale, side }: { layout: MapLayout; scale: number; side: 'start' | 'end' }) {
  return (
    <div class={`seatmap-rows ${side}`} aria-hidden="true">
      {layout.rows.map((r) => <span key={r.key} class="seatmap-row-label" style={{ top: `${r.y * scale}px` }}>{r.row}</span>)}
    </div>
  );
}

export function SeatMap({ seats, selected, mine, currency, tierIndex, facing, label, onPick }: SeatMapProps) {
  const layout = useMemo(() => layoutSeats(seats), [seats]);
  const [focusId, setFocusId] = useState<string | null>(null);
  const svg = useRef<SVGSVGElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const { scale, zoomIn, zoomOut, touch } = useMapZoom(layout, scroller, svg, focusId);

  const tabbable = focusId && layout.where.has(focusId)
    ? focusId
    : (seats.find((s) => selected.has(s.seat)) ?? seats.find((s) => s.status === 'available') ?? seats[0])?.seat ?? null;

  const seatOf = (target: EventTarget | null): Seat | null => {
    const id = (target as Element | null)?.closest?.('[data-seat]')?.getAttribute('data-seat');
    if (!id) return null;
    const at = layout.where.get(id);
    return at ? layout.rows[at.row]!.seats[at.index]!.seat : null;
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const seat = seatOf(e.target);
    if (!seat) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onPick(seat);
      return;
    }
    const next = seatToward(layout, seat.seat, e.key);
    if (next === null && !e.key.startsWith('Arrow')) return;
    e.preventDefault();
    if (next) {
      // Focus moves at once (the next key press starts from there); tabindex follows on render.
      setFocusId(next);
      const el = svg.current?.querySelector<SVGGElement>(`[data-seat="${CSS.escape(next)}"]`);
      el?.focus();
      el?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  };

  const onClick = (e: MouseEvent) => {
    const seat = seatOf(e.target);
    if (!seat) return;
    setFocusId(seat.seat);
    onPick(seat);
  };

  const width = layout.width * scale;
  const height = layout.height * scale;
  return (
    <div class="seatmap">
      <div class="seatmap-zoom" role="group" aria-label="Zoom the seat map">
        <button type="button" onClick={() => zoomOut?.()} disabled={!zoomOut} aria-label="Zoom out">−</button>
        <button type="button" onClick={() => zoomIn?.()} disabled={!zoomIn} aria-label="Zoom in">+</button>
      </div>
      <div class="seatmap-scroll" ref={scroller} {...touch}>
        <SeatNumbers layout={layout} scale={scale} />
        <div class="seatmap-canvas" style={{ width: `${width}px` }}>
          <RowLetters layout={layout} scale={scale} side="start" />
          <svg
            ref={svg}
            role="group"
            aria-label={label}
            viewBox={`0 0 ${layout.width} ${layout.height}`}
            width={width}
            height={height}
            onKeyDown={onKeyDown}
            onClick={onClick}
          >
            <g aria-hidden="true">
              <rect class="seatmap-stage" x={layout.width * 0.2} y={layout.stageY} width={layout.width * 0.6} height={22} rx={4} />
              <text class="seatmap-stage-label" x={layout.width / 2} y={layout.stageY + 15}>{facing}</text>
              {layout.sections.map((sec) => sec.section !== undefined && (
                <text key={`title-${sec.section}`} class="seatmap-section-title" x={layout.width / 2} y={sec.y + 18}>Section {sec.section}</text>
              ))}
              {layout.rows.map((r) => (
                <rect key={`band-${r.key}`} class={`seatmap-band tier-${tierIndex(r.tier)}`} x={r.x0} y={r.y - 14} width={r.x1 - r.x0} height={28} rx={6} />
              ))}
            </g>
            {layout.rows.map((r) => r.seats.map(({ seat, x, y }) => (
              <SeatGlyph key={seat.seat} seat={seat} x={x} y={y} selected={selected.has(seat.seat)} tabbable={seat.seat === tabbable} currency={currency} mine={mine.has(seat.seat)} />
            )))}
          </svg>
          <RowLetters layout={layout} scale={scale} side="end" />
        </div>
      </div>
    </div>
  );
}
