// The seat map drawn as SVG. Tab enters it at one seat (roving tabindex), arrow keys move
// between seats (Home/End: the row's ends), Enter or Space picks; a click picks too.
// Rows are labelled on both sides and tinted by price tier; zoom buttons for small screens.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Seat } from '../../api/types';
import { layoutSeats, seatToward } from './seatLayout';
import { SeatGlyph } from './SeatGlyph';
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

const ZOOMS = [1, 1.5, 2.25];
/** On-screen pixels per map unit at the smallest zoom (rows scroll sideways beyond that). */
const MIN_SCALE = 0.6;

export function SeatMap({ seats, selected, mine, currency, tierIndex, facing, label, onPick }: SeatMapProps) {
  const layout = useMemo(() => layoutSeats(seats), [seats]);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [zoom, setZoom] = useState(0);
  const svg = useRef<SVGSVGElement>(null);
  const scroller = useRef<HTMLDivElement>(null);

  /** The point of the map (as fractions of its size) at the middle of the view. */
  const centre = useRef({ x: 0.5, y: 0 });

  // A map wider than the screen opens at its middle, facing the stage; zooming keeps its centre.
  const scrollToCentre = () => {
    const el = scroller.current;
    if (!el) return;
    el.scrollLeft = centre.current.x * el.scrollWidth - el.clientWidth / 2;
    el.scrollTop = centre.current.y * el.scrollHeight - el.clientHeight / 2;
  };
  useEffect(() => {
    centre.current = { x: 0.5, y: 0 };
    scrollToCentre();
  }, [layout.width]);
  useEffect(scrollToCentre, [zoom]);

  const zoomTo = (level: number) => {
    const el = scroller.current;
    if (el) centre.current = { x: (el.scrollLeft + el.clientWidth / 2) / el.scrollWidth, y: (el.scrollTop + el.clientHeight / 2) / el.scrollHeight };
    setZoom(level);
  };

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

  const scale = MIN_SCALE * ZOOMS[zoom]!;
  return (
    <div class="seatmap">
      <div class="seatmap-zoom" role="group" aria-label="Zoom the seat map">
        <button type="button" onClick={() => zoomTo(zoom - 1)} disabled={zoom === 0} aria-label="Zoom out">−</button>
        <button type="button" onClick={() => zoomTo(zoom + 1)} disabled={zoom === ZOOMS.length - 1} aria-label="Zoom in">+</button>
      </div>
      <div class="seatmap-scroll" ref={scroller}>
        <svg
          ref={svg}
          role="group"
          aria-label={label}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          style={{ minWidth: `${Math.round(layout.width * scale)}px`, maxWidth: `${Math.round(layout.width * scale * 2)}px` }}
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
              <g key={`band-${r.key}`}>
                <rect class={`seatmap-band tier-${tierIndex(r.tier)}`} x={r.x0} y={r.y - 14} width={r.x1 - r.x0} height={28} rx={6} />
                <text class="seatmap-row-label" x={r.x0 - 18} y={r.y + 5}>{r.row}</text>
                <text class="seatmap-row-label" x={r.x1 + 18} y={r.y + 5}>{r.row}</text>
              </g>
            ))}
          </g>
          {layout.rows.map((r) => r.seats.map(({ seat, x, y }) => (
            <SeatGlyph key={seat.seat} seat={seat} x={x} y={y} selected={selected.has(seat.seat)} tabbable={seat.seat === tabbable} currency={currency} mine={mine.has(seat.seat)} />
          )))}
        </svg>
      </div>
    </div>
  );
}
