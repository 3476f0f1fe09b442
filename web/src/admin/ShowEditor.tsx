// A show created or changed (PATCH): event, hall, times in the venue's zone, prices for
// each tier the hall uses (typed in major units), and the sale rules. A new show's
// currency starts as the venue's last show's, else its country's (venueCurrency.ts),
// until the operator types one.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError } from '../api/client';
import type { CatalogEvent, Hall, HallDetail, Show, ShowSettings, Venue } from '../api/types';
import { Field } from './CatalogForms';
import { toMajorText, toMinor } from './money';
import { FieldMessages, messagesAt, ProblemList, problemOf, type FormProblem } from './problems';
import { usePagedList } from './usePagedList';
import { venueCurrency } from './venueCurrency';
import { utcToZoned, zonedToUtc } from './zonedTime';
import type { FieldError } from './layout';

interface Draft {
  event_id: string; hall_id: string; starts_at: string; sale_opens_at: string; currency: string;
  prices: Record<string, string>; hold_ttl_seconds: string; per_user_limit: string; cancel_until_minutes_before: string; waiting_room: boolean;
}

const blank: Draft = {
  event_id: '', hall_id: '', starts_at: '', sale_opens_at: '', currency: '', prices: {},
  hold_ttl_seconds: '600', per_user_limit: '10', cancel_until_minutes_before: '120', waiting_room: false,
};

function draftOf(s: Show): Draft {
  const tz = s.venue.timezone;
  return {
    event_id: s.event.id, hall_id: s.hall.id, starts_at: utcToZoned(s.starts_at, tz),
    sale_opens_at: s.sale_opens_at ? utcToZoned(s.sale_opens_at, tz) : '', currency: s.currency,
    prices: Object.fromEntries(Object.entries(s.price_tiers).map(([t, p]) => [t, toMajorText(p, s.currency)])),
    hold_ttl_seconds: String(s.hold_ttl_seconds), per_user_limit: String(s.per_user_limit),
    cancel_until_minutes_before: String(s.cancel_until_minutes_before), waiting_room: s.waiting_room,
  };
}

const whole = (text: string, min: number) => (/^\d+$/.test(text.trim()) && Number(text) >= min ? Number(text) : null);

/** The settings from the draft, or the fields that are wrong (paths as the API names them). */
function settingsOf(d: Draft, tiers: readonly string[], timeZone: string): { settings: ShowSettings } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!d.event_id) errors.push({ path: '/event_id', message: 'Choose the event.' });
  if (!d.hall_id) errors.push({ path: '/hall_id', message: 'Choose the hall.' });
  const starts = zonedToUtc(d.starts_at, timeZone);
  if (!starts) errors.push({ path: '/starts_at', message: 'When does it start? (date and time)' });
  const opens = d.sale_opens_at ? zonedToUtc(d.sale_opens_at, timeZone) : null;
  if (d.sale_opens_at && !opens) errors.push({ path: '/sale_opens_at', message: 'The sale opening is a date and time.' });
  if (starts && opens && Date.parse(opens) > Date.parse(starts)) errors.push({ path: '/sale_opens_at', message: 'The sale must open before the show starts.' });
  const currency = d.currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) errors.push({ path: '/currency', message: 'A currency is three letters (ISO 4217), e.g. EUR.' });
  const price_tiers: Record<string, number> = {};
  for (const t of tiers) {
    const minor = toMinor(d.prices[t] ?? '', /^[A-Z]{3}$/.test(currency) ? currency : 'EUR');
    if (minor === null) errors.push({ path: `/price_tiers/${t}`, message: `Tier ${t} needs a price, e.g. 12.50.` });
    else price_tiers[t] = minor;
  }
  const ttl = whole(d.hold_ttl_seconds, 1);
  if (ttl === null || ttl > 86_400) errors.push({ path: '/hold_ttl_seconds', message: 'Holds last 1 to 86,400 seconds.' });
  const limit = whole(d.per_user_limit, 1);
  if (limit === null || limit > 1000) errors.push({ path: '/per_user_limit', message: 'A buyer may take 1 to 1,000 seats.' });
  const cancel = whole(d.cancel_until_minutes_before, 0);
  if (cancel === null || cancel > 525_600) errors.push({ path: '/cancel_until_minutes_before', message: 'Minutes before the start, 0 or more.' });
  if (errors.length) return { errors };
  return {
    settings: {
      event_id: d.event_id, hall_id: d.hall_id, starts_at: starts!, ...(opens ? { sale_opens_at: opens } : {}), currency, price_tiers,
      hold_ttl_seconds: ttl!, per_user_limit: limit!, cancel_until_minutes_before: cancel!, waiting_room: d.waiting_room,
    },
  };
}

export function ShowEditor() {
  const { params } = useRoute();
  const { route } = useLocation();
  const showId = params.id;
  const venues = usePagedList<Venue>(useCallback((c?: string) => api.admin.venues(c).then((p) => ({ items: p.venues, next_cursor: p.next_cursor })), []));
  const events = usePagedList<CatalogEvent>(useCallback((c?: string) => api.admin.events(c).then((p) => ({ items: p.events, next_cursor: p.next_cursor })), []));
  const halls = usePagedList<Hall>(useCallback((c?: string) => api.admin.halls(undefined, c).then((p) => ({ items: p.halls, next_cursor: p.next_cursor })), []));
  const [show, setShow] = useState<Show | null>(null);
  const [draft, setDraft] = useState<Draft>(blank);
  const [hall, setHall] = useState<HallDetail | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState('');

  useEffect(() => {
    if (!showId) return;
    api.show(showId).then((s) => { setShow(s); setDraft(draftOf(s)); })
      .catch((e: unknown) => setLoadError(e instanceof ApiError && e.status === 404 ? 'There is no such show.' : 'The show could not be loaded.'));
  }, [showId]);
  useEffect(() => { if (!showId && !draft.event_id && events.items?.[0]) setDraft((d) => ({ ...d, event_id: events.items![0]!.id })); }, [events.items]);
  useEffect(() => { if (!showId && !draft.hall_id && halls.items?.[0]) setDraft((d) => ({ ...d, hall_id: halls.items![0]!.id })); }, [halls.items]);
  useEffect(() => {
    if (!draft.hall_id) { setHall(null); return; }
    let live = true;
    api.admin.hall(draft.hall_id).then((h) => { if (live) setHall(h); }).catch(() => { if (live) setHall(null); });
    return () => { live = false; };
  }, [draft.hall_id]);

  const venue = show?.venue ?? venues.items?.find((v) => v.id === hall?.venue_id) ?? null;
  const timeZone = venue?.timezone ?? 'UTC';
  const currencyTyped = useRef(false);
  useEffect(() => {
    if (showId || !venue || currencyTyped.current) return;
    let live = true;
    const zone = venue.timezone;
    const fill = (currency: string | null) => { if (live && !currencyTyped.current) setDraft((d) => ({ ...d, currency: currency ?? '' })); };
    api.admin.shows({ venue_id: venue.id }).then((p) => fill(venueCurrency(p.shows, zone)), () => fill(venueCurrency([], zone)));
    return () => { live = false; };
  }, [showId, venue?.id]);
  const tiers = hall?.tiers.map((t) => t.tier) ?? Object.keys(draft.prices);
  const errs = problem?.errors ?? [];
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => { setSaved(''); setDraft((d) => ({ ...d, [k]: v })); };

  const submit = async (e: Event) => {
    e.preventDefault();
    const out = settingsOf(draft, tiers, timeZone);
    if ('errors' in out) { setProblem({ message: 'The show has problems: fix them and save again.', errors: out.errors }); return; }
    setBusy(true);
    try {
      if (showId) {
        const { hall_id: _sameHall, ...patch } = out.settings;
        const s = await api.admin.updateShow(showId, patch);
        setShow(s); setDraft(draftOf(s)); setProblem(null); setSaved('Saved.');
      } else {
        const s = await api.admin.createShow(out.settings);
        route(`/admin/shows/${encodeURIComponent(s.id)}`);
      }
    } catch (err) {
      setProblem(problemOf(err, 'The show could not be saved.'));
    } finally { setBusy(false); }
  };

  if (loadError) return <section class="admin"><h1>Show</h1><p role="alert" class="error">{loadError}</p><p><a href="/admin">← Operators</a></p></section>;
  if (showId && !show) return <section class="admin"><p>Loading…</p></section>;

  const select = (id: string, label: string, key: 'event_id' | 'hall_id', options: { id: string; label: string }[], disabled = false) => {
    const m = messagesAt(errs, `/${key}`);
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <select id={id} value={draft[key]} disabled={disabled} onChange={(e) => set(key, e.currentTarget.value)}
          aria-invalid={m.length ? true : undefined} aria-describedby={m.length ? `${id}-error` : undefined}>
          {options.length === 0 && <option value="">None yet</option>}
          {options.map((o) => <option key={o.id} value={o.id}>{o.label}</option>)}
        </select>
        <FieldMessages id={`${id}-error`} messages={m} />
      </div>
    );
  };
  const venueOf = (h: Hall) => venues.items?.find((v) => v.id === h.venue_id);
  const hallOptions = show
    ? [{ id: show.hall.id, label: `${show.hall.name} — ${show.venue.name}` }]
    : (halls.items ?? []).map((h) => ({ id: h.id, label: `${h.name} — ${venueOf(h)?.name ?? 'venue'} (${h.seat_count} seats)` }));
  const eventOptions = (events.items ?? []).map((ev) => ({ id: ev.id, label: ev.title }));
  if (show && !eventOptions.some((o) => o.id === show.event.id)) eventOptions.unshift({ id: show.event.id, label: show.event.title });

  return (
    <section class="admin">
      <p><a href="/admin">← Operators</a>{show && <> · <a href={`/admin/shows/${encodeURIComponent(show.id)}`}>Dashboard</a></>}</p>
      <h1>{show ? `Edit show: ${show.event.title}` : 'New show'}</h1>
      <form class="admin-form show-form" onSubmit={submit} noValidate>
        {select('show-event', 'Event', 'event_id', eventOptions)}
        {select('show-hall', 'Hall', 'hall_id', hallOptions, Boolean(show))}
        {show && <p class="hint">A show keeps its hall: create a new show for another hall.</p>}
        <Field id="show-starts" label={`Starts at (${timeZone} time)`} type="datetime-local" value={draft.starts_at} onInput={(v) => set('starts_at', v)}
          required errors={messagesAt(errs, '/starts_at')} />
        <Field id="show-opens" label={`Sale opens at (${timeZone} time, optional)`} type="datetime-local" value={draft.sale_opens_at}
          onInput={(v) => set('sale_opens_at', v)} hint="Empty: the sale is open at once." errors={messagesAt(errs, '/sale_opens_at')} />
        <Field id="show-currency" label="Currency" value={draft.currency} onInput={(v) => { currencyTyped.current = true; set('currency', v); }} hint="ISO 4217, e.g. EUR or INR"
          errors={messagesAt(errs, '/currency')} />
        <fieldset>
          <legend>Prices by tier ({draft.currency.toUpperCase() || 'currency'})</legend>
          {tiers.length === 0 && <p>Choose a hall to price its tiers.</p>}
          {tiers.map((t) => (
            <Field key={t} id={`price-${t}`} label={`Price of ${t}`} inputMode="decimal" value={draft.prices[t] ?? ''}
              hint={hall ? `${hall.tiers.find((x) => x.tier === t)?.seats ?? 0} seats` : undefined}
              onInput={(v) => set('prices', { ...draft.prices, [t]: v })} errors={messagesAt(errs, `/price_tiers/${t}`)} />
          ))}
          <FieldMessages id="price-errors" messages={errs.filter((x) => x.path === '/price_tiers').map((x) => x.message)} />
        </fieldset>
        <Field id="show-ttl" label="Hold time (seconds)" type="number" min={1} inputMode="numeric" value={draft.hold_ttl_seconds}
          onInput={(v) => set('hold_ttl_seconds', v)} errors={messagesAt(errs, '/hold_ttl_seconds')} />
        <Field id="show-limit" label="Seats per buyer" type="number" min={1} inputMode="numeric" value={draft.per_user_limit}
          onInput={(v) => set('per_user_limit', v)} errors={messagesAt(errs, '/per_user_limit')} />
        <Field id="show-cancel" label="Cancellable until (minutes before the start)" type="number" min={0} inputMode="numeric"
          value={draft.cancel_until_minutes_before} onInput={(v) => set('cancel_until_minutes_before', v)} errors={messagesAt(errs, '/cancel_until_minutes_before')} />
        <div class="field checkbox">
          <input id="show-waiting-room" type="checkbox" checked={draft.waiting_room} onChange={(e) => set('waiting_room', e.currentTarget.checked)} />
          <label for="show-waiting-room">Sell through a waiting room</label>
        </div>
        <ProblemList problem={problem} />
        <p role="status" class="admin-notice">{saved}</p>
        <button type="submit" disabled={busy}>{show ? 'Save changes' : 'Create show'}</button>
      </form>
    </section>
  );
}
