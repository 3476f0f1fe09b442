// The holds this tab made, per show (sessionStorage), so the show page can tell the buyer's
// own held seats from other people's and lead back to checkout. Each is checked with the
// service (GET /v1/holds/{id}) before it is believed.
import { api } from './api/client';
import type { Hold } from './api/types';

const key = (showId: string) => `boxoffice.holds.${showId}`;

function stored(showId: string): Hold[] {
  try {
    const raw = sessionStorage.getItem(key(showId));
    return raw ? (JSON.parse(raw) as Hold[]) : [];
  } catch {
    return [];
  }
}

function store(showId: string, holds: Hold[]): void {
  if (holds.length) sessionStorage.setItem(key(showId), JSON.stringify(holds));
  else sessionStorage.removeItem(key(showId));
}

export const myHolds = {
  remember(hold: Hold): void {
    store(hold.show_id, [...stored(hold.show_id).filter((h) => h.hold_id !== hold.hold_id), hold]);
  },
  /** This tab's holds for the show that the service says are still active (or being paid). */
  async current(showId: string): Promise<Hold[]> {
    const candidates = stored(showId).filter((h) => Date.parse(h.expires_at) > Date.now() || h.status === 'paying');
    const checked = await Promise.all(candidates.map((h) => api.getHold(h.hold_id).catch(() => null)));
    const live = checked.filter((h): h is Hold => h !== null && (h.status === 'active' || h.status === 'paying'));
    store(showId, live);
    return live;
  },
};
