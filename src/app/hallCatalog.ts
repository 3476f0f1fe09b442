// Per-instance memory of what never changes: a show's hall and that hall's seats.
// Safe to keep forever: halls are immutable and a show never changes hall.
import type { Queryable } from '../db/client.js';
import { hallSeats } from '../db/catalog.js';
import type { HallSeat } from '../domain/layout.js';

export interface HallLayout {
  hallId: string;
  seats: readonly HallSeat[];
  seatIds: ReadonlySet<string>;
}

const MAX_HALLS = 64;

export class HallCatalog {
  private readonly layouts = new Map<string, Promise<HallLayout>>();
  private readonly showHall = new Map<string, string>();

  constructor(private readonly db: Queryable) {}

  /** The hall layout of a show, or null when the show does not exist. */
  async forShow(showId: string): Promise<HallLayout | null> {
    let hallId = this.showHall.get(showId);
    if (!hallId) {
      const r = await this.db.query<{ hall_id: string }>('select hall_id from shows where id = $1', [showId]);
      hallId = r.rows[0]?.hall_id;
      if (!hallId) return null;
      if (this.showHall.size > 10_000) this.showHall.clear();
      this.showHall.set(showId, hallId);
    }
    return this.forHall(hallId);
  }

  forHall(hallId: string): Promise<HallLayout> {
    let layout = this.layouts.get(hallId);
    if (!layout) {
      layout = hallSeats(this.db, hallId).then((seats) => ({ hallId, seats, seatIds: new Set(seats.map((s) => s.seat_id)) }));
      layout.catch(() => this.layouts.delete(hallId));
      if (this.layouts.size >= MAX_HALLS) this.layouts.delete(this.layouts.keys().next().value!);
      this.layouts.set(hallId, layout);
    }
    return layout;
  }
}
