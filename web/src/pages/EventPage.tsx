// An event's upcoming shows: when (in the venue's time zone), where, from what price,
// each a link to its seat map.
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api } from '../api/client';
import type { Show } from '../api/types';
import { dateTime } from '../format';
import { saleNote } from '../components/seatmap/ShowHeader';
import { priceText } from '../components/seatmap/seatNames';
import '../styles/seatmap.css';

function fromPrice(show: Show): string | null {
  const prices = Object.values(show.price_tiers);
  return prices.length ? `from ${priceText(Math.min(...prices), show.currency)}` : null;
}

export function EventPage() {
  const id = useRoute().params.id!;
  const [shows, setShows] = useState<Show[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setShows(null);
    setError(null);
    api.shows({ event: id })
      .then((r) => {
        setShows(r.shows);
        if (r.shows[0]) document.title = `${r.shows[0].event.title} · boxoffice`;
      })
      .catch(() => setError('The shows could not be loaded. Please reload the page.'));
  }, [id]);

  const title = shows?.[0]?.event.title;
  return (
    <section>
      <p><a href="/">← What's on</a></p>
      <h1>{title ?? (shows ? 'No upcoming shows' : 'Shows')}</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {shows === null && !error && <p aria-live="polite">Loading…</p>}
      {shows?.length === 0 && <p>This event has no shows still to come.</p>}
      {shows && shows.length > 0 && <p>Times are the venue's local time.</p>}
      <ul class="cards event-shows">
        {shows?.map((s) => {
          const note = saleNote(s);
          return (
            <li key={s.id} class="card">
              <h2>
                <a href={`/shows/${encodeURIComponent(s.id)}`}>
                  <time dateTime={s.starts_at}>{dateTime(s.starts_at, s.venue.timezone)}</time>
                  <span class="visually-hidden"> at {s.venue.name}, {s.venue.city}</span>
                </a>
              </h2>
              <p>{s.venue.name}, {s.venue.city} · {s.hall.name}</p>
              <p>{[fromPrice(s), s.waiting_room ? 'with a waiting room' : null].filter(Boolean).join(' · ')}</p>
              {note && <p class="sale-note">{note}</p>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
