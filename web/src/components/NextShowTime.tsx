// An event's next show time on the home page, in that show's venue's zone like on every
// other page: never drawn in the viewer's own zone, even for a moment.
import { useEffect, useState } from 'preact/hooks';
import type { ListedEvent } from '../api/types';
import { dateTime } from '../format';
import { nextShowZone } from '../nextShowZone';

export function NextShowTime({ event }: { event: ListedEvent }) {
  // undefined while looking; a show that cannot be found any more is given in UTC, labelled so.
  const [zone, setZone] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setZone(undefined);
    nextShowZone(event.id, event.next_show_at).then((z) => { if (live) setZone(z); }, () => { if (live) setZone(null); });
    return () => { live = false; };
  }, [event.id, event.next_show_at]);
  if (zone === undefined) return <span class="muted">…</span>;
  return <time dateTime={event.next_show_at}>{dateTime(event.next_show_at, zone ?? 'UTC')}</time>;
}
