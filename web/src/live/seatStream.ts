// The live seat map: one EventSource on GET /v1/shows/{id}/seats/stream (optionally one
// section). A snapshot replaces the map; a delta newer than the map changes its seats.
// The browser resends Last-Event-ID when it reconnects; when the stream is refused
// (not text/event-stream, e.g. 503) the map is read once and the stream retried later.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Seat, SeatDelta, SeatMap, SeatStatus } from '../api/types';
import { applyDelta } from './seatDeltas';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface LiveSeatMap {
  /** null until the first snapshot. */
  seats: Seat[] | null;
  version: number;
  state: LiveState;
}

const RETRY_MS = 3000;

/**
 * The show's (or one section's) seats, kept current from the stream while the component
 * is mounted; `override` lets the page mark seats it learned are gone (a lost hold race)
 * until the stream says otherwise.
 */
export function useLiveSeatMap(showId: string | null, section: string | null): LiveSeatMap & { override(seats: string[], status: SeatStatus): void } {
  const [map, setMap] = useState<LiveSeatMap>({ seats: null, version: -1, state: 'connecting' });

  useEffect(() => {
    setMap({ seats: null, version: -1, state: 'connecting' });
    if (!showId) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const snapshot = (m: SeatMap) => setMap({ seats: m.seats, version: m.version, state: 'live' });
    // A map read while the stream is down replaces only an older one.
    const fallback = (m: SeatMap) => setMap((cur) => (m.version < cur.version ? cur : { ...cur, seats: m.seats, version: m.version }));

    const connect = () => {
      source = new EventSource(api.seatStreamUrl(showId, section ?? undefined));
      source.addEventListener('snapshot', (e) => snapshot(JSON.parse((e as MessageEvent<string>).data) as SeatMap));
      source.addEventListener('delta', (e) => {
        const delta = JSON.parse((e as MessageEvent<string>).data) as SeatDelta;
        setMap((cur) => (cur.seats && delta.version > cur.version
          ? { seats: applyDelta(cur.seats, cur.version, delta), version: delta.version, state: 'live' }
          : cur));
      });
      source.addEventListener('open', () => setMap((cur) => (cur.seats ? { ...cur, state: 'live' } : cur)));
      source.addEventListener('error', () => {
        if (stopped || !source) return;
        if (source.readyState === EventSource.CONNECTING) {
          // The browser reconnects by itself, sending Last-Event-ID.
          setMap((cur) => ({ ...cur, state: 'reconnecting' }));
          return;
        }
        // Refused for good: read the map once, try the stream again a little later.
        source.close();
        source = null;
        setMap((cur) => ({ ...cur, state: 'reconnecting' }));
        api.seatMap(showId, section ?? undefined).then(fallback).catch(() => {});
        retry = setTimeout(() => { if (!stopped) connect(); }, RETRY_MS);
      });
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [showId, section]);

  const override = (ids: string[], status: SeatStatus) => {
    const gone = new Set(ids);
    setMap((cur) => (cur.seats ? { ...cur, seats: cur.seats.map((s) => (gone.has(s.seat) && s.status === 'available' ? { ...s, status } : s)) } : cur));
  };
  return { ...map, override };
}
