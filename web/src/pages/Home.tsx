// What's on: upcoming events, searchable by the beginnings of title words, filtered by
// a city that has shows and a date; the filters live in the address.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api/client';
import type { ListedEvent } from '../api/types';
import { cityChoices, distinctCities, filtersFrom, searchOf, type SearchFilters } from '../searchFilters';

/** The cities that have shows to come, from the shows' venues (null until known). */
function useCities(): string[] | null {
  const [cities, setCities] = useState<string[] | null>(null);
  useEffect(() => {
    let live = true;
    api.shows()
      .then((r) => { if (live) setCities(distinctCities(r.shows.map((s) => s.venue.city))); })
      // Without the list, the city already chosen stays the one choice: the search still works.
      .catch(() => { if (live) setCities([]); });
    return () => { live = false; };
  }, []);
  return cities;
}
import { NextShowTime } from '../components/NextShowTime';

export function Home() {
  const [filters, setFilters] = useState<SearchFilters>(() => filtersFrom(location.search));
  const set = (change: Partial<SearchFilters>) => setFilters((f) => ({ ...f, ...change }));
  const cities = useCities();
  const { options, chosen } = cityChoices(cities ?? [], filters.city);
  const [events, setEvents] = useState<ListedEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      // Replaced, not pushed: Back leaves the page instead of undoing each keystroke.
      history.replaceState(history.state, '', `${location.pathname}${searchOf(filters)}`);
      const { q, city, date } = filters;
      api.events({ q: q.trim() || undefined, city: city.trim() || undefined, date: date || undefined })
        .then((r) => { if (live) { setEvents(r.events); setError(null); } })
        .catch((e: unknown) => { if (live) setError(e instanceof ApiError ? e.message : 'The catalog could not be loaded.'); });
    }, 200);
    return () => { clearTimeout(t); live = false; };
  }, [filters]);

  return (
    <section>
      <h1>What's on</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>Title <input type="search" value={filters.q} onInput={(e) => set({ q: e.currentTarget.value })} /></label>
        <label>City
          <select value={chosen} onChange={(e) => set({ city: e.currentTarget.value })}>
            <option value="">Any city</option>
            {options.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        <label>Date <input type="date" value={filters.date} onInput={(e) => set({ date: e.currentTarget.value })} /></label>
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
