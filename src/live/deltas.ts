// Deltas of the live seat map: one per show per published batch (so per show
// versions are consecutive), each with the latest status of every seat it changed
// (the publisher builds them in SQL). Pure: a bounded per-show buffer for Last-Event-ID resumes.
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
