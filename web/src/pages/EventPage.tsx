// An event's upcoming shows: when (in the venue's time zone), where, from what price,
// each a link to its seat map.
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api } from '../api/client';
import type { Show } from '../api/types';
import { dateOnly, dateTime } from '../format';
import { saleNote } from '../components/seatmap/ShowHeader';
import { priceText } from '../components/seatmap/seatNames';
import { NotFound } from './NotFound';
import '../styles/seatmap.css';

/** Shows grouped by their day in the venue's time zone ("Friday 4 December 2026"), in order. */
function byDay(shows: Show[]): [string, Show[]][] {
  const days = new Map<string, Show[]>();
  for (const s of shows) {
    const day = dateOnly(s.starts_at, s.venue.timezone);
    days.set(day, [...(days.get(day) ?? []), s]);
  }
  return [...days];
}

function fromPrice(show: Show): string | null {
  const prices = Object.values(show.price_tiers);
  return prices.length ? `from ${priceText(Math.min(...prices), show.currency)}` : null;
}

export function EventPage() {
  const id = useRoute().params.id!;
  const [shows, setShows] = useState<Show[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [city, setCity] = useState('');

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

  // The public API knows an event only by its shows still to come: without any, there is
  // nothing to show at this address (an unknown id, or an event that is over).
  if (shows?.length === 0) {
    return (
      <NotFound heading="Event not found">
        <p>No event with shows still to come has this address. <a href="/">See what's on</a>.</p>
      </NotFound>
    );
  }

  const title = shows?.[0]?.event.title;
  const cities = [...new Set((shows ?? []).map((s) => s.venue.city))].sort();
  const shown = (shows ?? []).filter((s) => !city || s.venue.city === city);
  return (
    <section>
      <p><a href="/">← What's on</a></p>
      <h1>{title ?? 'Shows'}</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {shows === null && !error && <p aria-live="polite">Loading…</p>}
      {cities.length > 1 && (
        <p class="filters event-city">
          <label>City{' '}
            <select value={city} onChange={(e) => setCity(e.currentTarget.value)}>
              <option value="">All cities</option>
              {cities.map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
          </label>
        </p>
      )}
      {shows && shows.length > 0 && <p>Times are the venue's local time.</p>}
      {byDay(shown).map(([day, dayShows]) => (
        <div key={day}>
          <h2 class="show-day">{day}</h2>
          <ul class="cards event-shows">
            {dayShows.map((s) => {
              const note = saleNote(s);
              return (
                <li key={s.id} class="card">
                  <h3>
                    <a href={`/shows/${encodeURIComponent(s.id)}`}>
                      <time dateTime={s.starts_at}>{dateTime(s.starts_at, s.venue.timezone)}</time>
                      <span class="visually-hidden"> at {s.venue.name}, {s.venue.city}</span>
                    </a>
                  </h3>
                  <p>{s.venue.name}, {s.venue.city} · {s.hall.name}</p>
                  <p>{[fromPrice(s), s.waiting_room ? 'with a waiting room' : null].filter(Boolean).join(' · ')}</p>
                  {note && <p class="sale-note">{note}</p>}
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </section>
  );
}
