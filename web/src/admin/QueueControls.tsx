// A waiting-room show's room as operators see it, with pause / resume and the admission cap.
import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { QueueAdminView } from '../api/types';
import { Field } from './CatalogForms';
import { ProblemList, problemOf, type FormProblem } from './problems';

const shown = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString() : v.toFixed(2)) : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function QueueControls({ showId, view, onChange }: { showId: string; view: QueueAdminView | null; onChange: (v: QueueAdminView) => void }) {
  const [cap, setCap] = useState('');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  const send = async (change: { action?: 'pause' | 'resume'; max_admit_per_minute?: number | null }, done: string) => {
    setBusy(true);
    try {
      onChange(await api.admin.controlQueue(showId, change));
      setProblem(null); setNotice(done);
    } catch (e) {
      setProblem(problemOf(e, 'The waiting room could not be changed.'));
    } finally { setBusy(false); }
  };
  const setTheCap = (e: Event) => {
    e.preventDefault();
    if (!/^\d+$/.test(cap.trim())) {
      setProblem({ message: 'The cap is a whole number of admissions per minute (0 admits no one).', errors: [{ path: '/max_admit_per_minute', message: 'A whole number, 0 or more.' }] });
      return;
    }
    void send({ max_admit_per_minute: Number(cap) }, `Admissions capped at ${Number(cap).toLocaleString()} a minute.`);
  };

  return (
    <section class="admin-block" aria-labelledby="queue-heading">
      <h2 id="queue-heading">Waiting room</h2>
      {view === null ? <p>Loading…</p> : (
        <>
          <dl class="queue-view">
            <div><dt>State</dt><dd>{view.paused ? 'Paused' : 'Admitting'}{view.sold_out ? ' · sold out' : ''}</dd></div>
            <div><dt>Serving up to</dt><dd>{shown(view.serving)}</dd></div>
            <div><dt>{view.sold_out ? 'Waiting, told it is sold out' : 'Waiting'}</dt><dd>{shown(view.waiting)}</dd></div>
            <div><dt>Admitted</dt><dd>{shown(view.admitted)}</dd></div>
            <div><dt>Admission rate</dt><dd>{shown(view.admit_rate_per_minute)} a minute</dd></div>
            <div><dt>Cap</dt><dd>{view.max_admit_per_minute === null ? 'none' : `${view.max_admit_per_minute.toLocaleString()} a minute`}</dd></div>
          </dl>
          <div class="queue-actions">
            {view.paused
              ? <button type="button" disabled={busy} onClick={() => send({ action: 'resume' }, 'The waiting room admits again.')}>Resume admissions</button>
              : <button type="button" disabled={busy} onClick={() => send({ action: 'pause' }, 'The waiting room is paused.')}>Pause admissions</button>}
          </div>
          <form class="admin-form cap-form" onSubmit={setTheCap}>
            <Field id="queue-cap" label="Cap (admissions per minute)" type="number" min={0} inputMode="numeric" value={cap} onInput={setCap}
              hint="0 admits no one; remove the cap to let the controller decide alone." />
            <button type="submit" disabled={busy}>Set cap</button>
            <button type="button" class="secondary" disabled={busy || view.max_admit_per_minute === null}
              onClick={() => send({ max_admit_per_minute: null }, 'The cap is removed.')}>Remove cap</button>
          </form>
          <ProblemList problem={problem} />
          <p role="status" class="admin-notice">{notice}</p>
          <details>
            <summary>Controller inputs</summary>
            <dl class="queue-view">
              {Object.entries(view.controller).map(([k, v]) => <div key={k}><dt>{k.replace(/_/g, ' ')}</dt><dd>{shown(v)}</dd></div>)}
            </dl>
          </details>
        </>
      )}
    </section>
  );
}
