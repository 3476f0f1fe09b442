// The seat map's scale: fitted to the width it has but never so small that a seat's cell is
// under a finger's 24 × 24 px, times a zoom that the buttons step and two fingers spread.
// A zoom keeps a point where it was on screen: the point between the fingers, else the
// seat last tapped or moved to (when in view), else the middle of the view.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import type { MapLayout } from './seatLayout';

/** The zoom buttons' steps; a pinch zooms anywhere between the first and the last. */
const ZOOMS = [1, 1.5, 2.25];
const MAX_ZOOM = ZOOMS[ZOOMS.length - 1]!;
/**
 * CSS px per map unit at the smallest zoom, at least: a seat's cell (PITCH × ROW_HEIGHT
 * units) is then 25.2 × 27 px, above the 24 × 24 px a finger needs (WCAG 2.5.8). A hall
 * wider than the screen scrolls sideways rather than shrinking its seats below that.
 */
const MIN_SCALE = 0.9;
/** …and at most, where there is room (a small hall is not blown up to the page's width). */
const MAX_SCALE = 1.35;

/** A point of the map (in map units) and where it was on screen, to be kept there across a zoom. */
interface Anchor { ux: number; uy: number; clientX: number; clientY: number }

export interface MapZoom {
  /** CSS px per map unit. */
  scale: number;
  zoomIn: (() => void) | null;
  zoomOut: (() => void) | null;
  /** For the scrolling frame: a pinch zooms the map (its CSS keeps the page from zooming). */
  touch: { onTouchStart(e: TouchEvent): void; onTouchMove(e: TouchEvent): void; onTouchEnd(e: TouchEvent): void; onTouchCancel(e: TouchEvent): void };
}

const spread = (t: TouchList) => Math.hypot(t[0]!.clientX - t[1]!.clientX, t[0]!.clientY - t[1]!.clientY);

export function useMapZoom(layout: MapLayout, scroller: RefObject<HTMLDivElement | null>, svg: RefObject<SVGSVGElement | null>, focusId: string | null): MapZoom {
  const [zoom, setZoom] = useState(1);
  const [room, setRoom] = useState(0);
  const anchor = useRef<Anchor | null>(null);
  const pinch = useRef<{ spread: number; zoom: number } | null>(null);
  const fit = room > 0 ? Math.min(MAX_SCALE, Math.max(MIN_SCALE, room / layout.width)) : MIN_SCALE;
  const scale = fit * zoom;

  // The width the map has, measured (not left to CSS) so the row letters can be placed in px.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => {
      const style = getComputedStyle(el);
      setRoom(el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // A map wider than the screen opens at its middle, facing the stage.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    el.scrollLeft = (el.scrollWidth - el.clientWidth) / 2;
    el.scrollTop = 0;
  }, [layout.width]);

  // After a zoom, scroll so the anchored point is where it was on screen.
  useLayoutEffect(() => {
    const a = anchor.current;
    const el = scroller.current;
    const box = svg.current?.getBoundingClientRect();
    anchor.current = null;
    if (!a || !el || !box) return;
    el.scrollLeft += box.left + a.ux * scale - a.clientX;
    el.scrollTop += box.top + a.uy * scale - a.clientY;
    // A map shorter than its frame grows downwards: the page scrolls for what the frame cannot.
    const now = svg.current!.getBoundingClientRect();
    window.scrollBy(0, now.top + a.uy * scale - a.clientY);
  }, [scale]);

  const zoomTo = (next: number, at?: { x: number; y: number }) => {
    const el = scroller.current;
    const box = svg.current?.getBoundingClientRect();
    if (el && box) {
      let point = at;
      if (!point) {
        const view = el.getBoundingClientRect();
        point = { x: view.left + view.width / 2, y: view.top + view.height / 2 };
        const where = focusId ? layout.where.get(focusId) : undefined;
        const seat = where && layout.rows[where.row]!.seats[where.index]!;
        const x = seat ? box.left + seat.x * scale : NaN;
        const y = seat ? box.top + seat.y * scale : NaN;
        if (x >= view.left && x <= view.right && y >= view.top && y <= view.bottom) point = { x, y };
      }
      anchor.current = { ux: (point.x - box.left) / scale, uy: (point.y - box.top) / scale, clientX: point.x, clientY: point.y };
    }
    setZoom(next);
  };
  const zoomInTo = ZOOMS.find((z) => z > zoom + 0.01);
  const zoomOutTo = [...ZOOMS].reverse().find((z) => z < zoom - 0.01);

  const onTouchStart = (e: TouchEvent) => {
    pinch.current = e.touches.length === 2 ? { spread: spread(e.touches), zoom } : null;
  };
  const onTouchMove = (e: TouchEvent) => {
    const p = pinch.current;
    if (!p || e.touches.length !== 2) return;
    const next = Math.min(MAX_ZOOM, Math.max(1, p.zoom * spread(e.touches) / p.spread));
    const [a, b] = [e.touches[0]!, e.touches[1]!];
    if (Math.abs(next - zoom) > 0.005) zoomTo(next, { x: (a.clientX + b.clientX) / 2, y: (a.clientY + b.clientY) / 2 });
  };
  const onTouchEnd = (e: TouchEvent) => {
    if (e.touches.length < 2) pinch.current = null;
  };

  return {
    scale,
    zoomIn: zoomInTo === undefined ? null : () => zoomTo(zoomInTo),
    zoomOut: zoomOutTo === undefined ? null : () => zoomTo(zoomOutTo),
    touch: { onTouchStart, onTouchMove, onTouchEnd, onTouchCancel: onTouchEnd },
  };
}
