// One line naming a show: title, venue, city and start in the venue's time zone.
import type { Show } from '../api/types';
import { dateTime } from '../format';

export function ShowLine({ show }: { show: Show | null }) {
  if (!show) return null;
  return (
    <p class="show-line">
      <strong>{show.event.title}</strong> · {show.venue.name}, {show.venue.city} · <time dateTime={show.starts_at}>{dateTime(show.starts_at, show.venue.timezone)}</time>
    </p>
  );
}
