// The operators' home: venues, events, halls and shows, each listed a page at a time,
// with forms to create venues and events and links to the hall editor and show form.
import { useCallback, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { CatalogEvent, Hall, Show, Venue } from '../api/types';
import { dateTime } from '../format';
import { EventForm, VenueForm } from './CatalogForms';
import { usePagedList, type PagedList } from './usePagedList';
import { takeFlash } from './flash';

function MoreButton({ list, what }: { list: PagedList<unknown>; what: string }) {
  return list.more ? <button type="button" class="secondary" onClick={list.loadMore}>More {what}</button> : null;
}

function ListState({ list, empty }: { list: PagedList<unknown>; empty: string }) {
  if (list.error) return <p role="alert" class="error">{list.error}</p>;
  if (list.items === null) return <p>Loading…</p>;
  if (list.items.length === 0) return <p>{empty}</p>;
  return null;
}

export function AdminHome() {
  // Another page sends its outcome here ("Hall … created") to be announced.
  const [notice, setNotice] = useState(takeFlash);
  const venues = usePagedList<Venue>(useCallback((c?: string) => api.admin.venues(c).then((p) => ({ items: p.venues, next_cursor: p.next_cursor })), []));
  const events = usePagedList<CatalogEvent>(useCallback((c?: string) => api.admin.events(c).then((p) => ({ items: p.events, next_cursor: p.next_cursor })), []));
  const halls = usePagedList<Hall>(useCallback((c?: string) => api.admin.halls(undefined, c).then((p) => ({ items: p.halls, next_cursor: p.next_cursor })), []));
  const shows = usePagedList<Show>(useCallback((c?: string) => api.admin.shows({ cursor: c }).then((p) => ({ items: p.shows, next_cursor: p.next_cursor })), []));
  const venueName = (id: string) => venues.items?.find((v) => v.id === id)?.name ?? id;

  return (
    <section class="admin">
      <h1>Operators</h1>
      <p class="admin-notice" role="status">{notice}</p>

      <section aria-labelledby="venues-heading" class="admin-block">
        <h2 id="venues-heading">Venues</h2>
        <ListState list={venues} empty="No venues yet." />
        <ul class="admin-list">
          {venues.items?.map((v) => <li key={v.id}><strong>{v.name}</strong> · {v.city} · {v.timezone}</li>)}
        </ul>
        <MoreButton list={venues} what="venues" />
        <VenueForm onCreated={(v) => { venues.reload(); setNotice(`Venue ${v.name} created.`); }} />
      </section>

      <section aria-labelledby="events-heading" class="admin-block">
        <h2 id="events-heading">Events</h2>
        <ListState list={events} empty="No events yet." />
        <ul class="admin-list">
          {events.items?.map((e) => (
            <li key={e.id}><strong>{e.title}</strong> · {e.kind}{e.duration_minutes ? ` · ${e.duration_minutes} min` : ''}</li>
          ))}
        </ul>
        <MoreButton list={events} what="events" />
        <EventForm onCreated={(e) => { events.reload(); setNotice(`Event ${e.title} created.`); }} />
      </section>

      <section aria-labelledby="halls-heading" class="admin-block">
        <h2 id="halls-heading">Halls</h2>
        <ListState list={halls} empty="No halls yet." />
        <ul class="admin-list">
          {halls.items?.map((h) => (
            <li key={h.id}><strong>{h.name}</strong> · {venueName(h.venue_id)} · {h.seat_count.toLocaleString()} seats</li>
          ))}
        </ul>
        <MoreButton list={halls} what="halls" />
        <p><a class="button" href="/admin/halls/new">New hall</a></p>
      </section>

      <section aria-labelledby="shows-heading" class="admin-block">
        <h2 id="shows-heading">Shows</h2>
        <ListState list={shows} empty="No shows yet." />
        <ul class="admin-list">
          {shows.items?.map((s) => (
            <li key={s.id}>
              <strong>{s.event.title}</strong> · {s.venue.name}, {s.hall.name} · {dateTime(s.starts_at, s.venue.timezone)}
              {s.waiting_room ? ' · waiting room' : ''}
              <span class="admin-actions">
                <a href={`/admin/shows/${encodeURIComponent(s.id)}`} aria-label={`Dashboard of ${s.event.title}, ${dateTime(s.starts_at, s.venue.timezone)}`}>Dashboard</a>
                <a href={`/admin/shows/${encodeURIComponent(s.id)}/edit`} aria-label={`Edit ${s.event.title}, ${dateTime(s.starts_at, s.venue.timezone)}`}>Edit</a>
              </span>
            </li>
          ))}
        </ul>
        <MoreButton list={shows} what="shows" />
        <p><a class="button" href="/admin/shows/new">New show</a></p>
      </section>
    </section>
  );
}
