// The seats a buyer has picked on a show's map, kept for this tab (sessionStorage) so a
// detour through sign-in or another section does not lose them.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Seat } from './api/types';

const key = (showId: string) => `boxoffice.selection.${showId}`;

function stored(showId: string): Seat[] {
  try {
    const raw = sessionStorage.getItem(key(showId));
    return raw ? (JSON.parse(raw) as Seat[]) : [];
  } catch {
    return [];
  }
}

export interface SeatSelection {
  seats: Seat[];
  ids: ReadonlySet<string>;
  add(seat: Seat): void;
  remove(ids: Iterable<string>): void;
  clear(): void;
}

export function useSeatSelection(showId: string): SeatSelection {
  const [seats, setSeats] = useState<Seat[]>(() => stored(showId));
  useEffect(() => setSeats(stored(showId)), [showId]);
  const update = (change: (cur: Seat[]) => Seat[]) => setSeats((cur) => {
    const next = change(cur);
    if (next.length) sessionStorage.setItem(key(showId), JSON.stringify(next));
    else sessionStorage.removeItem(key(showId));
    return next;
  });
  const ids = useMemo(() => new Set(seats.map((s) => s.seat)), [seats]);
  return {
    seats,
    ids,
    add: (seat) => update((cur) => [...cur.filter((s) => s.seat !== seat.seat), seat]),
    remove: (removed) => {
      const gone = new Set(removed);
      update((cur) => cur.filter((s) => !gone.has(s.seat)));
    },
    clear: () => update(() => []),
  };
}
