// The seat map stream's events as bytes (Server-Sent Events, UTF-8): each is built
// once and the same Buffer goes to every viewer it is for, never changed (the
// framing and compression keep their own bytes per event buffer, in WeakMaps).
import { seatsBySection } from '../domain/seatSections.js';
import type { Delta } from './deltas.js';

/** A comment line: keeps an idle stream open through proxies. */
export const HEARTBEAT = Buffer.from(': heartbeat\n\n');

export function retryEvent(retryMs: number): Buffer {
  return Buffer.from(`retry: ${retryMs}\n\n`);
}

/** A hall's seats, as far as sections go. */
export interface SectionedLayout {
  seats: readonly { seat_id: string; section?: string | null }[];
}

const sectionSeats = new WeakMap<SectionedLayout, Map<string, Set<string>>>();

/** The seat ids of each section of a hall (empty for a hall without sections), grouped once per layout. */
export function sectionsOf(layout: SectionedLayout): Map<string, Set<string>> {
  let m = sectionSeats.get(layout);
  if (!m) {
    m = new Map([...seatsBySection(layout.seats)].map(([section, seats]) => [section, new Set(seats.map((s) => s.seat_id))]));
    sectionSeats.set(layout, m);
  }
  return m;
}

/** What a viewer is shown: the whole show (section null) or one section's seats. */
export interface ViewOf {
  showId: string;
  section: string | null;
  inSection: ReadonlySet<string> | null;
}

/** A delta's event, once per delta and section ('' for the whole show): null when the delta leaves the section untouched. */
const deltaEvents = new WeakMap<Delta, Map<string, Buffer | null>>();

export function deltaEvent(d: Delta, view: ViewOf): Buffer | null {
  let events = deltaEvents.get(d);
  if (!events) deltaEvents.set(d, (events = new Map()));
  const key = view.section ?? '';
  let event = events.get(key);
  if (event === undefined) {
    const seats = view.inSection;
    const changes = seats ? d.changes.filter((c) => seats.has(c.seat)) : d.changes;
    event = changes.length === 0 ? null : Buffer.from(`id: ${d.version}\nevent: delta\ndata: ${JSON.stringify({ version: d.version, changes })}\n\n`);
    events.set(key, event);
  }
  return event;
}

/** The map as the stream's snapshot needs it: its version and tag, and its JSON (one line) whole or by section. */
export interface MapForStream {
  version: number;
  etag: string;
  body: Buffer;
  section(name: string): { bytes: Buffer } | null;
}

/** Snapshot events by show and section, built once per map refresh from the map's own bytes. */
export class SnapshotEvents {
  private readonly built = new Map<string, { etag: string; bytes: Buffer }>();

  of(view: ViewOf, map: MapForStream): Buffer {
    const key = `${view.showId}\u0000${view.section ?? ''}`;
    const cached = this.built.get(key);
    if (cached?.etag === map.etag) return cached.bytes;
    // The section's part of the map is built once per map refresh (null only for a
    // section the hall lacks, which the stream refused already).
    const part = view.section === null ? map.body : map.section(view.section)?.bytes;
    if (!part) throw new Error(`show ${view.showId}: the map has no section ${view.section}`);
    // The map's JSON is one line: it stands as the data line as it is.
    const bytes = Buffer.concat([Buffer.from(`id: ${map.version}\nevent: snapshot\ndata: `), part, Buffer.from('\n\n')]);
    if (this.built.size > 1000) this.built.clear();
    this.built.set(key, { etag: map.etag, bytes });
    return bytes;
  }
}
