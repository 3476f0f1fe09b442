// One line naming a show: title (unless the page's heading has it), venue, city and
// start in the venue's time zone.
import type { Show } from '../api/types';
import { dateTime } from '../format';

export function ShowLine({ show, title = true }: { show: Show | null; title?: boolean }) {
  if (!show) return null;
  return (
    <p class="show-line">
      {title && <><strong>{show.event.title}</strong> · </>}{show.venue.name}, {show.venue.city} · <time dateTime={show.starts_at}>{dateTime(show.starts_at, show.venue.timezone)}</time>
    </p>
  );
}
