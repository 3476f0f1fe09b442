// Cancelling a show from its dashboard: a reason and a confirmation step, then the
// refunds' progress (bookings cancelled, refunds sent) read every 1.5 s until every
// refund is through. A show cancelled earlier shows its progress at once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api/client';
import type { Show, ShowCancellation } from '../api/types';
import { dateTime, money } from '../format';
import { Field } from './CatalogForms';
import { ProblemList, problemOf, type FormProblem } from './problems';
import { usePolling } from './usePolling';

const EVERY_MS = 1500;

function Progress({ c, currency, timezone }: { c: ShowCancellation; currency: string; timezone: string }) {
  const total = c.bookings_to_refund;
  const done = c.refunds.succeeded;
  const finished = c.completed && c.refunds.pending === 0;
  return (
    <>
      <p>Cancelled {dateTime(c.cancelled_at, timezone)}: {c.reason}</p>
      <p>
        <label for="refund-progress">Refunds sent</label>{' '}
        <progress id="refund-progress" max={Math.max(total, 1)} value={done}>{done} of {total}</progress>{' '}
        {done.toLocaleString()} of {total.toLocaleString()}
      </p>
      <dl class="queue-view">
        <div><dt>Bookings cancelled</dt><dd>{c.bookings_cancelled.toLocaleString()}</dd></div>
        <div><dt>Still to cancel</dt><dd>{c.bookings_remaining.toLocaleString()}</dd></div>
        <div><dt>Payments in flight</dt><dd>{c.payments_pending.toLocaleString()}</dd></div>
        <div><dt>Refunds on their way</dt><dd>{c.refunds.pending.toLocaleString()}</dd></div>
        <div><dt>Refunded</dt><dd>{money(c.refunds.amount_refunded, currency)}</dd></div>
        {c.refunds.failed > 0 && <div><dt>Refunds refused by the provider</dt><dd>{c.refunds.failed.toLocaleString()}</dd></div>}
      </dl>
      <p role="status" class="admin-notice">
        {finished ? `Every booking is cancelled and ${done === 1 ? 'its refund sent' : 'all refunds sent'}.` : 'Refunds are being sent…'}
      </p>
    </>
  );
}

export function CancelShow({ show, onCancelled }: { show: Show; onCancelled?: () => void }) {
  const [cancellation, setCancellation] = useState<ShowCancellation | null>(null);
  const [cancelled, setCancelled] = useState(show.status === 'cancelled');
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const question = useRef<HTMLParagraphElement>(null);
  useEffect(() => { if (confirming) question.current?.focus(); }, [confirming]);

  usePolling(async () => {
    if (!cancelled) return;
    try {
      setCancellation(await api.admin.cancellation(show.id));
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
  }, EVERY_MS, `${show.id}:${cancelled}`);

  const ask = (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) {
      setProblem({ message: 'Say why the show is cancelled.', errors: [{ path: '/reason', message: 'A reason is needed.' }] });
      return;
    }
    setProblem(null);
    setConfirming(true);
  };
  const cancel = async () => {
    setBusy(true);
    try {
      await api.admin.cancelShow(show.id, reason.trim());
      setCancelled(true); setConfirming(false);
      onCancelled?.();
    } catch (e) {
      setProblem(problemOf(e, 'The show could not be cancelled.'));
      setConfirming(false);
    } finally { setBusy(false); }
  };

  return (
    <section class="admin-block" aria-labelledby="cancel-show-heading">
      <h2 id="cancel-show-heading">{cancelled ? 'Cancellation' : 'Cancel show'}</h2>
      {cancelled ? (cancellation ? <Progress c={cancellation} currency={show.currency} timezone={show.venue.timezone} /> : <p>Loading…</p>) : (
        <>
          <p class="muted">Cancelling stops the sale at once and refunds every booking in full, whatever the cancellation window. It cannot be undone.</p>
          {!confirming && (
            <form class="admin-form" onSubmit={ask}>
              <Field id="cancel-reason" label="Reason" value={reason} onInput={setReason} required
                errors={problem?.errors.filter((x) => x.path === '/reason').map((x) => x.message)} />
              <button type="submit" class="danger">Cancel show</button>
            </form>
          )}
          {confirming && (
            <div class="confirm" role="group" aria-labelledby="cancel-show-question">
              <p id="cancel-show-question" tabIndex={-1} ref={question}>
                Cancel this show? Every booking is cancelled and refunded in full; tickets stop working.
              </p>
              <div class="actions">
                <button type="button" class="danger" aria-disabled={busy ? 'true' : undefined} onClick={() => void (busy ? null : cancel())}>
                  {busy ? 'Cancelling…' : 'Yes, cancel the show'}
                </button>
                <button type="button" class="secondary" onClick={() => setConfirming(false)}>Keep selling</button>
              </div>
            </div>
          )}
          <ProblemList problem={problem} />
        </>
      )}
    </section>
  );
}
