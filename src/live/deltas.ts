// Deltas of the live seat map: one per show per published batch (so per show
// versions are consecutive), each with the latest status of every seat it changed.
// Pure: grouping and a bounded per-show buffer for Last-Event-ID resumes.
/** A seat's status as the map shows it (a paying seat shows as held). */
export type MapStatus = 'available' | 'held' | 'booked';

export interface SeatChange {
  seat: string;
  status: MapStatus;
}

export interface Delta {
  show_id: string;
  version: number;
  changes: SeatChange[];
}

export interface FeedRow {
  show_id: string;
  seat_id: string;
  status: MapStatus;
  seat_version: number;
  map_version: number;
}

/** Rows of whole batches → deltas in version order per show, the latest status per seat (by seat_version). */
export function deltasOf(rows: readonly FeedRow[]): Delta[] {
  const byKey = new Map<string, { show_id: string; version: number; seats: Map<string, { status: MapStatus; at: number }> }>();
  for (const r of rows) {
    const key = `${r.show_id}\u0000${r.map_version}`;
    let d = byKey.get(key);
    if (!d) byKey.set(key, (d = { show_id: r.show_id, version: r.map_version, seats: new Map() }));
    const seen = d.seats.get(r.seat_id);
    if (!seen || seen.at < r.seat_version) d.seats.set(r.seat_id, { status: r.status, at: r.seat_version });
  }
  return [...byKey.values()]
    .sort((a, b) => (a.show_id < b.show_id ? -1 : a.show_id > b.show_id ? 1 : a.version - b.version))
    .map((d) => ({ show_id: d.show_id, version: d.version, changes: [...d.seats].map(([seat, s]) => ({ seat, status: s.status })) }));
}

/** The last `capacity` deltas of one show, consecutive versions. */
export class DeltaBuffer<D extends { version: number } = Delta> {
  private readonly ring: D[] = [];

  constructor(private readonly capacity: number) {}

  get last(): number | null {
    return this.ring.at(-1)?.version ?? null;
  }

  /** Adds the next delta; one that does not follow the last (a missed batch) starts the buffer over. */
  push(d: D): void {
    const last = this.last;
    if (last !== null && d.version !== last + 1) this.ring.length = 0;
    this.ring.push(d);
    if (this.ring.length > this.capacity) this.ring.shift();
  }

  /** Every delta after `version`, or null when the buffer does not reach back that far (or not that far forward). */
  since(version: number): D[] | null {
    const first = this.ring[0];
    const last = this.last;
    if (!first || last === null || version < first.version - 1 || version > last) return null;
    return this.ring.slice(version - first.version + 1);
  }
}
