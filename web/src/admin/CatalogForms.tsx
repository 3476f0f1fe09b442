// The small create forms of the operators' home: a venue, an event.
import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { CatalogEvent, Venue } from '../api/types';
import { FieldMessages, messagesAt, ProblemList, problemOf, type FormProblem } from './problems';
import { timeZones } from './zonedTime';

/** A labelled input with its server/client error messages beside it. */
export function Field(props: {
  id: string; label: string; value: string; onInput: (v: string) => void; errors?: string[]; hint?: string;
  type?: 'text' | 'number' | 'datetime-local'; required?: boolean; list?: string; inputMode?: 'numeric' | 'decimal' | 'text'; min?: number; max?: number; disabled?: boolean;
}) {
  const errors = props.errors ?? [];
  const described = [props.hint ? `${props.id}-hint` : '', errors.length ? `${props.id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id} type={props.type ?? 'text'} value={props.value} required={props.required} list={props.list}
        inputMode={props.inputMode} min={props.min} max={props.max} disabled={props.disabled}
        aria-invalid={errors.length ? true : undefined} aria-describedby={described}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.hint && <span class="hint" id={`${props.id}-hint`}>{props.hint}</span>}
      <FieldMessages id={`${props.id}-error`} messages={errors} />
    </div>
  );
}

export function VenueForm({ onCreated }: { onCreated: (v: Venue) => void }) {
  const [name, setName] = useState('');
  const [city, setCity] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const v = await api.admin.createVenue({ name: name.trim(), city: city.trim(), timezone: timezone.trim() || undefined });
      setProblem(null); setName(''); setCity('');
      onCreated(v);
    } catch (err) {
      setProblem(problemOf(err, 'The venue could not be created.'));
    } finally { setBusy(false); }
  };
  const errs = problem?.errors ?? [];
  return (
    <form class="admin-form" onSubmit={submit} aria-labelledby="new-venue">
      <h3 id="new-venue">New venue</h3>
      <ProblemList problem={problem} />
      <Field id="venue-name" label="Venue name" value={name} onInput={setName} required errors={messagesAt(errs, '/name')} />
      <Field id="venue-city" label="City" value={city} onInput={setCity} required errors={messagesAt(errs, '/city')} />
      <Field id="venue-timezone" label="Time zone" value={timezone} onInput={setTimezone} list="time-zones"
        hint="An IANA name, e.g. Europe/Paris" errors={messagesAt(errs, '/timezone')} />
      <datalist id="time-zones">{timeZones().map((z) => <option key={z} value={z} />)}</datalist>
      <button type="submit" disabled={busy}>Create venue</button>
    </form>
  );
}

export function EventForm({ onCreated }: { onCreated: (e: CatalogEvent) => void }) {
  const [title, setTitle] = useState('');
  const [kind, setKind] = useState('film');
  const [duration, setDuration] = useState('');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const minutes = duration.trim() ? Number(duration) : undefined;
    if (minutes !== undefined && (!Number.isInteger(minutes) || minutes < 1)) {
      setProblem({ message: 'The event could not be created.', errors: [{ path: '/duration_minutes', message: 'The duration is a whole number of minutes, at least 1.' }] });
      return;
    }
    setBusy(true);
    try {
      const ev = await api.admin.createEvent({ title: title.trim(), kind: kind.trim() || undefined, duration_minutes: minutes });
      setProblem(null); setTitle(''); setDuration('');
      onCreated(ev);
    } catch (err) {
      setProblem(problemOf(err, 'The event could not be created.'));
    } finally { setBusy(false); }
  };
  const errs = problem?.errors ?? [];
  return (
    <form class="admin-form" onSubmit={submit} aria-labelledby="new-event">
      <h3 id="new-event">New event</h3>
      <ProblemList problem={problem} />
      <Field id="event-title" label="Title" value={title} onInput={setTitle} required errors={messagesAt(errs, '/title')} />
      <Field id="event-kind" label="Kind" value={kind} onInput={setKind} hint="film, concert, play…" errors={messagesAt(errs, '/kind')} />
      <Field id="event-duration" label="Duration (minutes)" type="number" min={1} inputMode="numeric" value={duration} onInput={setDuration}
        errors={messagesAt(errs, '/duration_minutes')} />
      <button type="submit" disabled={busy}>Create event</button>
    </form>
  );
}
