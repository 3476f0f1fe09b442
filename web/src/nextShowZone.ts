// The venue time zone of an event's next show. GET /v1/events names the next show's
// instant but not its venue, so the home page looks the show up among the upcoming
// shows (one request per page load), and asks for the event's own shows only when it
// is not among them (an event beyond the first page of shows, or added since).
import { api } from './api/client';
import type { Show } from './api/types';

let upcoming: Promise<Show[]> | null = null;
const byEvent = new Map<string, Promise<Show[]>>();

// A failed look-up is forgotten, so the next caller asks again.
function upcomingShows(): Promise<Show[]> {
  if (!upcoming) {
    upcoming = api.shows().then((r) => r.shows);
    upcoming.catch(() => { upcoming = null; });
  }
  return upcoming;
}

function showsOf(eventId: string): Promise<Show[]> {
  let p = byEvent.get(eventId);
  if (!p) {
    p = api.shows({ event: eventId }).then((r) => r.shows);
    byEvent.set(eventId, p);
    p.catch(() => byEvent.delete(eventId));
  }
  return p;
}

const zoneIn = (shows: Show[], eventId: string, at: number): string | undefined =>
  shows.find((s) => s.event.id === eventId && Date.parse(s.starts_at) === at)?.venue.timezone;

/** The zone of the event's show starting at `nextShowAt`; null when no such show is listed. */
export async function nextShowZone(eventId: string, nextShowAt: string): Promise<string | null> {
  const at = Date.parse(nextShowAt);
  return zoneIn(await upcomingShows(), eventId, at) ?? zoneIn(await showsOf(eventId), eventId, at) ?? null;
}
