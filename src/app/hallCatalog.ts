// Per-instance memory of what never changes: a show's hall and that hall's seats.
// Safe to keep forever: halls are immutable and a show never changes hall.
import type { Queryable } from '../db/client.js';
import { hallSeats, hallSectionPlan } from '../db/catalog.js';
import { showHallId } from '../db/shows.js';
import type { HallSeat, SectionPlacement } from '../domain/layout.js';

export interface HallLayout {
  hallId: string;
  seats: readonly HallSeat[];
  seatIds: ReadonlySet<string>;
  /** Where the layout places its sections on the plan (empty when it places none). */
  sectionPlan: ReadonlyMap<string, SectionPlacement>;
}

const MAX_HALLS = 64;

export class HallCatalog {
  private readonly layouts = new Map<string, Promise<HallLayout>>();
  private readonly showHall = new Map<string, string>();
  private readonly loaded = new Map<string, HallLayout>();

  constructor(private readonly db: Queryable) {}

  /** The layout of a show already in memory, without a promise round trip (the hot path). */
  known(showId: string): HallLayout | undefined {
    const hallId = this.showHall.get(showId);
    return hallId === undefined ? undefined : this.loaded.get(hallId);
  }

  /** The hall layout of a show, or null when the show does not exist. */
  async forShow(showId: string): Promise<HallLayout | null> {
    let hallId = this.showHall.get(showId) ?? null;
    if (!hallId) {
      hallId = await showHallId(this.db, showId);
      if (!hallId) return null;
      if (this.showHall.size > 10_000) this.showHall.clear();
      this.showHall.set(showId, hallId);
    }
    return this.forHall(hallId);
  }

  forHall(hallId: string): Promise<HallLayout> {
    let layout = this.layouts.get(hallId);
    if (!layout) {
      layout = Promise.all([hallSeats(this.db, hallId), hallSectionPlan(this.db, hallId)]).then(([seats, sectionPlan]) => {
        const loaded = { hallId, seats, seatIds: new Set(seats.map((s) => s.seat_id)), sectionPlan };
        this.loaded.set(hallId, loaded);
        return loaded;
      });
      layout.catch(() => this.layouts.delete(hallId));
      if (this.layouts.size >= MAX_HALLS) {
        const oldest = this.layouts.keys().next().value!;
        this.layouts.delete(oldest);
        this.loaded.delete(oldest);
      }
      this.layouts.set(hallId, layout);
    }
    return layout;
  }
}
