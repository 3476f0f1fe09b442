// One read of a show's seats, and every answer made from it: the whole map, the
// per-section summary and each section's part of the map. The parts are built on
// first ask and kept with the snapshot, so however many browsers ask, each is
// serialized (and compressed) once per cache refresh.
import { seatsBySection, summariseSections, type MapStatus } from '../domain/seatSections.js';
import type { SectionPlacement } from '../domain/layout.js';
import { EncodedBody } from './encodedBody.js';

export interface MapSeat {
  seat: string;
  status: MapStatus;
  tier: string;
  price: number | null;
  row: string;
  number: number;
  section?: string;
  accessible?: boolean;
}

/** `"x"` → `"x.sections"`: a derived answer gets its own tag from the map's. */
const derivedTag = (etag: string, suffix: string) => `${etag.slice(0, -1)}.${suffix}"`;

export class SeatMapSnapshot {
  private whole: EncodedBody | null = null;
  private summary: EncodedBody | null = null;
  private grouped: Map<string, MapSeat[]> | null = null;
  private readonly parts = new Map<string, EncodedBody>();

  /**
   * `etag` is the map's strong tag; it must change whenever any seat's answer does.
   * `seats` are never changed once here (the next refresh may share the unchanged ones).
   */
  constructor(
    readonly showId: string, readonly version: number, readonly etag: string, readonly seats: readonly MapSeat[],
    /** Where the hall's layout places its sections on the plan (a hall's, so never changing: not in the tag). */
    readonly sectionPlan: ReadonlyMap<string, SectionPlacement> = new Map(),
  ) {}

  /** The whole map (a stadium's is ~6 MB: made only when someone asks for it, not for its sections). */
  get map(): EncodedBody {
    this.whole ??= new EncodedBody(Buffer.from(JSON.stringify({ show_id: this.showId, version: this.version, seats: this.seats })), this.etag);
    return this.whole;
  }

  /** The serialized JSON of the whole map, ready to send. */
  get body(): Buffer {
    return this.map.bytes;
  }

  /**
   * `{show_id, version, sections: [...]}`; `sections: []` for a hall without sections.
   * A section the layout places carries its `plan` too.
   */
  sections(): EncodedBody {
    if (this.summary) return this.summary;
    const sections = summariseSections(this.seats).map((s) => {
      const plan = this.sectionPlan.get(s.section);
      return plan ? { ...s, plan } : s;
    });
    this.summary = new EncodedBody(
      Buffer.from(JSON.stringify({ show_id: this.showId, version: this.version, sections })),
      derivedTag(this.etag, 'sections'),
    );
    return this.summary;
  }

  /** That section's part of the map (the show's version), or null when the hall has no such section. */
  section(name: string): EncodedBody | null {
    let part = this.parts.get(name);
    if (part) return part;
    this.grouped ??= seatsBySection(this.seats);
    const seats = this.grouped.get(name);
    if (!seats) return null;
    // Section labels are letters and digits (the layout's rule), so they can stand in a tag.
    part = new EncodedBody(Buffer.from(JSON.stringify({ show_id: this.showId, version: this.version, seats })), derivedTag(this.etag, `section-${name}`));
    this.parts.set(name, part);
    return part;
  }
}
