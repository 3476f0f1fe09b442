// A new hall: its venue, name and layout — rows typed in the editor or read from a
// layout JSON file (uploaded or pasted) — checked as it is typed, drawn live, then sent.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api/client';
import type { Layout, Venue } from '../api/types';
import { Field } from './CatalogForms';
import { checkDraft, emptyRow, readLayoutFile, toLayout, type DraftRow, type FieldError } from './layout';
import { LayoutPreview } from './LayoutPreview';
import { FieldMessages, messagesAt, ProblemList, problemOf, type FormProblem } from './problems';
import { usePagedList } from './usePagedList';
import { flash } from './flash';

/** A stadium's file may have thousands of rows: the editor shows the first ones until asked. */
const SHOWN_ROWS = 100;

const nextRowName = (rows: readonly DraftRow[]) => {
  const last = rows.at(-1)?.row.trim() ?? '';
  return /^[A-Y]$/.test(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : rows.length === 0 ? 'A' : '';
};

function RowEditor({ row, index, errors, onChange, onRemove }: {
  row: DraftRow; index: number; errors: FieldError[]; onChange: (r: DraftRow) => void; onRemove: () => void;
}) {
  const at = `/layout/rows/${index}`;
  const id = (f: string) => `row-${index}-${f}`;
  const field = (f: keyof DraftRow, label: string, hint?: string) => (
    <Field id={id(f)} label={label} value={row[f]} hint={hint} onInput={(v) => onChange({ ...row, [f]: v })} errors={messagesAt(errors, `${at}/${f}`)} />
  );
  const rowLevel = errors.filter((e) => e.path === at).map((e) => e.message);
  return (
    <fieldset class="layout-row">
      <legend>Row {index + 1}{row.row.trim() ? ` (${row.row.trim()})` : ''}</legend>
      {field('row', 'Row name')}
      {field('seats', 'Seats', 'A count (20) or numbers (1-10, 14)')}
      {field('tier', 'Tier')}
      {field('section', 'Section (optional)')}
      {field('accessible', 'Accessible seats (optional)', 'Numbers, e.g. 1, 2')}
      <FieldMessages id={id('errors')} messages={rowLevel} />
      <button type="button" class="secondary" onClick={onRemove} aria-label={`Remove row ${index + 1}${row.row.trim() ? ` (${row.row.trim()})` : ''}`}>Remove row</button>
    </fieldset>
  );
}

export function HallEditor() {
  const { route } = useLocation();
  const venues = usePagedList<Venue>(useCallback((c?: string) => api.admin.venues(c).then((p) => ({ items: p.venues, next_cursor: p.next_cursor })), []));
  const [venueId, setVenueId] = useState('');
  const [name, setName] = useState('');
  const [rows, setRows] = useState<DraftRow[]>([{ ...emptyRow('A'), seats: '10' }]);
  /** Section placements read from a file (not edited here; sent with the rows). */
  const [placements, setPlacements] = useState<Layout['sections']>(undefined);
  const [pasted, setPasted] = useState('');
  const [fileProblem, setFileProblem] = useState<FormProblem | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const [touched, setTouched] = useState(false);
  const [showAll, setShowAll] = useState(false);

  useEffect(() => { if (!venueId && venues.items?.[0]) setVenueId(venues.items[0].id); }, [venues.items, venueId]);

  const clientErrors = checkDraft(rows);
  const shownErrors = [...(touched ? clientErrors : []), ...(problem?.errors ?? [])];

  const setRow = (i: number, r: DraftRow) => { setTouched(true); setProblem(null); setRows(rows.map((x, k) => (k === i ? r : x))); };
  const addRow = () => {
    // A new row is shown, however many rows the editor hides.
    if (rows.length >= SHOWN_ROWS) setShowAll(true);
    setRows([...rows, { ...emptyRow(nextRowName(rows)), tier: rows.at(-1)?.tier ?? 'standard', seats: rows.at(-1)?.seats ?? '10' }]);
  };
  const load = (text: string, source: string) => {
    const read = readLayoutFile(text);
    if ('errors' in read) { setFileProblem({ message: `${source} could not be read.`, errors: read.errors }); return; }
    setFileProblem(null); setProblem(null); setTouched(true);
    setRows(read.rows);
    setPlacements(read.sections);
  };
  const onFile = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (file) load(await file.text(), `The file ${file.name}`);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setTouched(true);
    const errs = checkDraft(rows);
    const local: FieldError[] = [...errs];
    if (!venueId) local.push({ path: '/venue_id', message: 'Choose a venue (create one on the operators page first).' });
    if (!name.trim()) local.push({ path: '/name', message: 'The hall needs a name.' });
    if (local.length) { setProblem({ message: 'The hall has problems: fix them and create it again.', errors: local.filter((x) => !errs.includes(x)) }); return; }
    setBusy(true);
    try {
      const hall = await api.admin.createHall({ venue_id: venueId, name: name.trim(), layout: toLayout(rows, placements) });
      flash(`Hall ${hall.name} created with ${hall.seat_count} seats.`);
      route('/admin');
    } catch (err) {
      setProblem(problemOf(err, 'The hall could not be created.'));
    } finally { setBusy(false); }
  };

  const topErrors = touched ? clientErrors : [];
  return (
    <section class="admin">
      <p><a href="/admin">← Operators</a></p>
      <h1>New hall</h1>
      <form onSubmit={submit} class="hall-editor" noValidate>
        <div class="field">
          <label for="hall-venue">Venue</label>
          <select id="hall-venue" value={venueId} onChange={(e) => setVenueId(e.currentTarget.value)}
            aria-invalid={messagesAt(shownErrors, '/venue_id').length ? true : undefined} aria-describedby="hall-venue-error">
            {venues.items?.length === 0 && <option value="">No venues yet</option>}
            {venues.items?.map((v) => <option key={v.id} value={v.id}>{v.name} ({v.city})</option>)}
          </select>
          <FieldMessages id="hall-venue-error" messages={messagesAt(shownErrors, '/venue_id')} />
        </div>
        <Field id="hall-name" label="Hall name" value={name} onInput={setName} required errors={messagesAt(shownErrors, '/name')} />

        <fieldset class="layout-import">
          <legend>Layout file</legend>
          <p class="hint" id="layout-format">JSON like {'{"rows": [{"row": "A", "seats": 20, "tier": "standard", "section": "101", "accessible": [1, 2]}]}'}.
            It replaces the rows below. An optional {'"sections": [{"section": "101", "plan": {"x": 380, "y": 250, "w": 240, "h": 90}}]'} beside
            the rows places sections on the venue plan (a 1000 × 1000 box, the stage at its centre); it is sent with the rows.
            {placements?.length ? ` This file places ${placements.length} section${placements.length === 1 ? '' : 's'}.` : ''}</p>
          <div class="field">
            <label for="layout-file">Upload a layout file</label>
            <input id="layout-file" type="file" accept="application/json,.json" onChange={onFile} aria-describedby="layout-format" />
          </div>
          <div class="field">
            <label for="layout-paste">Or paste layout JSON</label>
            <textarea id="layout-paste" rows={4} value={pasted} onInput={(e) => setPasted(e.currentTarget.value)} aria-describedby="layout-format" />
          </div>
          <button type="button" class="secondary" onClick={() => load(pasted, 'The pasted layout')} disabled={!pasted.trim()}>Use pasted layout</button>
          <ProblemList problem={fileProblem} />
        </fieldset>

        <h2>Rows</h2>
        {topErrors.length > 0 && (
          <div class="admin-problem" role="alert" aria-label="Layout problems">
            <p>The layout has {topErrors.length} problem{topErrors.length === 1 ? '' : 's'}:</p>
            <ul>{topErrors.map((x) => <li key={`${x.path}:${x.message}`}>{x.message}</li>)}</ul>
          </div>
        )}
        {(showAll ? rows : rows.slice(0, SHOWN_ROWS)).map((r, i) => (
          <RowEditor key={i} row={r} index={i} errors={shownErrors} onChange={(nr) => setRow(i, nr)}
            onRemove={() => { setTouched(true); setRows(rows.filter((_, k) => k !== i)); }} />
        ))}
        {!showAll && rows.length > SHOWN_ROWS && (
          <p>{rows.length - SHOWN_ROWS} more rows are not shown (the preview and the checks include them).{' '}
            <button type="button" class="secondary" onClick={() => setShowAll(true)}>Show all {rows.length} rows</button></p>
        )}
        <button type="button" class="secondary" onClick={addRow}>
          Add row
        </button>

        <h2>Preview</h2>
        <LayoutPreview rows={rows} />

        <ProblemList problem={problem} />
        <button type="submit" disabled={busy}>Create hall</button>
      </form>
    </section>
  );
}
