// Cancelling a confirmed booking, after a confirmation step: the seats are released
// and the amount refunded. Too late (CANCELLATION_WINDOW_CLOSED) or not cancellable
// (NOT_CANCELLABLE) is explained.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Booking, Show } from '../api/types';
import { dateTime, money } from '../format';
import { problemText } from '../problemText';

interface Props { booking: Booking; show: Show | null; onCancelled(b: Booking): void }

function windowText(show: Show | null): string {
  if (!show) return 'Bookings can be cancelled only up to a set time before the show starts.';
  const until = Date.parse(show.starts_at) - show.cancel_until_minutes_before * 60_000;
  return `Bookings for this show can be cancelled until ${dateTime(new Date(until).toISOString(), show.venue.timezone)}.`;
}

export function CancelBooking({ booking, show, onCancelled }: Props) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const question = useRef<HTMLParagraphElement>(null);
  const opener = useRef<HTMLButtonElement>(null);

  useEffect(() => { if (confirming) question.current?.focus(); }, [confirming]);

  async function cancel() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      onCancelled(await api.cancelBooking(booking.booking_id));
    } catch (e) {
      setConfirming(false);
      setError(problemText(e, {
        CANCELLATION_WINDOW_CLOSED: `It is too late to cancel this booking. ${windowText(show)}`,
        NOT_CANCELLABLE: 'This booking cannot be cancelled: only a confirmed booking whose tickets have not been checked in can be.',
      }));
    } finally {
      setBusy(false);
    }
  }

  const deadline = show ? Date.parse(show.starts_at) - show.cancel_until_minutes_before * 60_000 : null;
  return (
    <div class="cancel-booking">
      <h2>Cancel</h2>
      {deadline !== null && <p class="muted">{windowText(show)}</p>}
      {error && <p class="error" role="alert">{error}</p>}
      {!confirming && (
        <button type="button" class="secondary" ref={opener} onClick={() => setConfirming(true)}>Cancel booking</button>
      )}
      {confirming && (
        <div class="confirm" role="group" aria-labelledby="cancel-question">
          <p id="cancel-question" tabIndex={-1} ref={question}>
            Cancel this booking? Your seats are released and {money(booking.amount, booking.currency)} is refunded to your payment method.
          </p>
          <div class="actions">
            <button type="button" class="danger" aria-disabled={busy ? 'true' : undefined} onClick={() => void cancel()}>{busy ? 'Cancelling…' : 'Yes, cancel booking'}</button>
            <button type="button" class="secondary" onClick={() => { setConfirming(false); setTimeout(() => opener.current?.focus(), 0); }}>Keep booking</button>
          </div>
        </div>
      )}
    </div>
  );
}
