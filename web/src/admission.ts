// A buyer's place in a show's waiting room and the admission it earned, kept for this
// browser tab (sessionStorage), so the show page and checkout send `Admission-Token`.
import type { Admission, QueueJoin } from './api/types';

const key = (kind: 'queue' | 'admission', showId: string) => `boxoffice.${kind}.${showId}`;

function read<T>(k: string): T | null {
  const raw = sessionStorage.getItem(k);
  return raw ? (JSON.parse(raw) as T) : null;
}

export const waitingRoom = {
  place: (showId: string) => read<QueueJoin>(key('queue', showId)),
  setPlace: (showId: string, q: QueueJoin) => sessionStorage.setItem(key('queue', showId), JSON.stringify(q)),
  /** The admission token for this show while it has not expired, else null. */
  admission(showId: string): string | null {
    const a = read<Admission>(key('admission', showId));
    if (!a || Date.parse(a.expires_at) <= Date.now()) return null;
    return a.admission_token;
  },
  setAdmission: (showId: string, a: Admission) => sessionStorage.setItem(key('admission', showId), JSON.stringify(a)),
  forget(showId: string): void {
    sessionStorage.removeItem(key('queue', showId));
    sessionStorage.removeItem(key('admission', showId));
  },
};
