// What's on: upcoming events, searchable by title, filtered by city and date.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api/client';
import type { ListedEvent } from '../api/types';
import { NextShowTime } from '../components/NextShowTime';

export function Home() {
  const [q, setQ] = useState('');
  const [city, setCity] = useState('');
  const [date, setDate] = useState('');
  const [events, setEvents] = useState<ListedEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const ctrl = new AbortController();
    const t = setTimeout(() => {
      api.events({ q: q.trim() || undefined, city: city.trim() || undefined, date: date || undefined })
        .then((r) => { setEvents(r.events); setError(null); })
        .catch((e: unknown) => setError(e instanceof ApiError ? e.message : 'The catalog could not be loaded.'));
    }, 200);
    return () => { clearTimeout(t); ctrl.abort(); };
  }, [q, city, date]);

  return (
    <section>
      <h1>What's on</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>Title <input type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} /></label>
        <label>City <input type="text" value={city} onInput={(e) => setCity(e.currentTarget.value)} /></label>
        <label>Date <input type="date" value={date} onInput={(e) => setDate(e.currentTarget.value)} /></label>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {events === null && !error && <p aria-live="polite">Loading…</p>}
      {events?.length === 0 && <p>No events match.</p>}
      <ul class="cards">
        {events?.map((ev) => (
          <li key={ev.id} class="card">
            <h2><a href={`/events/${encodeURIComponent(ev.id)}`}>{ev.title}</a></h2>
            <p>{ev.kind} · next show <NextShowTime event={ev} /></p>
          </li>
        ))}
      </ul>
    </section>
  );
}
