// A sold-out show's waiting list on its page: join it for a number of seats, see your
// place, and — when seats free up and a hold is made for you — the offer with its
// countdown and the way to checkout. Your entry is read again every few seconds while
// you wait (the offer is made by the service, not by this page) — for the shows this
// browser joined the list of (localStorage): asking about every sold-out show would be
// a 404 for most.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api/client';
import type { Show, WaitlistEntry } from '../api/types';
import { HoldCountdown } from './HoldCountdown';
import { seatList } from '../seatLabel';
import { myHolds } from '../myHolds';
import '../styles/checkout.css';

const REFRESH_MS = 3000;

const joined = {
  key: (showId: string) => `boxoffice.waitlist.${showId}`,
  has(showId: string): boolean { try { return localStorage.getItem(this.key(showId)) !== null; } catch { return false; } },
  set(showId: string, on: boolean): void {
    try {
      if (on) localStorage.setItem(this.key(showId), '1');
      else localStorage.removeItem(this.key(showId));
    } catch {
      // storage refused (private mode): the entry is shown until the page is left
    }
  },
};

interface Props { show: Show; soldOut: boolean }

export function WaitingList({ show, soldOut }: Props) {
  const [entry, setEntry] = useState<WaitlistEntry | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [seats, setSeats] = useState<string[] | null>(null);
  const [count, setCount] = useState(1);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  const read = async () => {
    if (!joined.has(show.id)) return setLoaded(true);
    await api.myWaitlistEntry(show.id)
      .then((e) => setEntry(e))
      .catch((e: unknown) => {
        if (!(e instanceof ApiError && e.status === 404)) return;
        joined.set(show.id, false);
        setEntry(null);
      })
      .finally(() => setLoaded(true));
  };

  useEffect(() => {
    setEntry(null);
    setLoaded(false);
    void read();
    const every = setInterval(() => void read(), REFRESH_MS);
    return () => clearInterval(every);
  }, [show.id]);

  // The offered seats, read once per offer.
  useEffect(() => {
    setSeats(null);
    if (entry?.status === 'offered' && entry.hold_id) api.getHold(entry.hold_id).then((h) => {
      setSeats(h.seats);
      // Checkout and the show page know it as this buyer's hold from now on.
      myHolds.remember(h);
    }).catch(() => {});
  }, [entry?.hold_id, entry?.status]);

  if (!loaded) return null;
  const listed = entry !== null && entry.status !== 'left';
  if (!listed && !soldOut) return null;

  const join = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      setEntry(await api.joinWaitlist(show.id, count));
      joined.set(show.id, true);
    } catch (err) {
      setError(err instanceof ApiError && err.code === 'SEATS_AVAILABLE'
        ? `${count} seats next to each other are free right now: choose them on the map instead.`
        : err instanceof ApiError && err.code === 'SALE_CLOSED' ? 'The show has started: the waiting list is closed.'
          : 'Joining the waiting list did not work. Please try again.');
    } finally {
      setBusy(false);
    }
  };
  const leave = async () => {
    setBusy(true);
    try {
      await api.leaveWaitlist(show.id);
      await read();
    } finally {
      setBusy(false);
    }
  };
  const seatWord = (n: number) => `${n} seat${n === 1 ? '' : 's'}`;

  return (
    <section class="panel waiting-list" aria-labelledby="waiting-list-heading">
      <h2 id="waiting-list-heading">Waiting list</h2>
      <div aria-live="polite">
        {entry?.status === 'offered' && (
          <div class="notice">
            <p><strong>Seats are held for you{seats ? `: ${seatList(seats)}` : ''}.</strong> Pay for them before the hold ends, or they go to the next person waiting.</p>
            {entry.expires_at && <HoldCountdown expiresAt={entry.expires_at} timeZone={show.venue.timezone} onExpired={() => void read()} />}
            <p><a href={`/holds/${encodeURIComponent(entry.hold_id!)}`}>Go to checkout</a></p>
          </div>
        )}
        {entry?.status === 'waiting' && (
          <p>You are number {entry.position} on the waiting list for {seatWord(entry.count)}. When seats free up, they are held for you here.</p>
        )}
        {entry?.status === 'booked' && <p>You booked the seats offered to you. <a href="/bookings">Your bookings</a></p>}
        {entry?.status === 'lapsed' && <p>The seats offered to you were not paid in time and went to the next person waiting.</p>}
      </div>
      {(entry === null || entry.status === 'left' || entry.status === 'lapsed' || entry.status === 'booked') && soldOut && (
        <form onSubmit={join}>
          <p>This show is sold out. Join the waiting list: when seats free up, they are held for the first person in line they fit.</p>
          <label>
            Seats wanted{' '}
            <select value={String(count)} onChange={(e) => setCount(Number((e.target as HTMLSelectElement).value))}>
              {Array.from({ length: show.per_user_limit }, (_, i) => <option key={i} value={String(i + 1)}>{i + 1}</option>)}
            </select>
          </label>{' '}
          <button type="submit" disabled={busy}>Join the waiting list</button>
        </form>
      )}
      {(entry?.status === 'waiting' || entry?.status === 'offered') && (
        <p><button type="button" class="link" disabled={busy} onClick={() => void leave()}>Leave the waiting list</button></p>
      )}
      <p role="alert" class="error">{error}</p>
    </section>
  );
}
