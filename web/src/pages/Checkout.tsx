// Checkout of a hold (/holds/:id): its seats and amount, the time left, releasing the
// seats, and paying (one Idempotency-Key per attempt, reused when a click is retried
// after no answer; Admission-Token when this tab was admitted through the waiting room).
// A payment whose outcome is not known (booking `pending`) is said as such, from the
// booking the request entered while it still waits for the bank, and followed until it
// is settled: confirmed (the booking page), or declined (here, to pay again).
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError } from '../api/client';
import type { Booking, Hold } from '../api/types';
import { waitingRoom } from '../admission';
import { HoldCountdown } from '../components/HoldCountdown';
import { PaymentPending } from '../components/PaymentPending';
import { PaymentForm } from '../components/PaymentForm';
import { ShowLine } from '../components/ShowLine';
import { backoffMs } from '../bookingStatus';
import { money } from '../format';
import { paymentAttempt } from '../paymentAttempt';
import { busyText, declinedText, isNetworkError, problemText } from '../problemText';
import { seatLabel } from '../seatLabel';
import { useShowInfo } from '../showInfo';
import { useSignedIn } from '../signedIn';
import '../styles/checkout.css';

interface Message { tone: 'error' | 'info'; text: string; link?: { href: string; label: string } }

const showPath = (showId: string) => `/shows/${encodeURIComponent(showId)}`;
const bookingPath = (bookingId: string) => `/bookings/${encodeURIComponent(bookingId)}`;
/**
 * While a payment request waits for the bank: when its booking is first looked at (a
 * slow card answers within about 3 s, and is not worth a word), then how often.
 */
const IN_FLIGHT_FIRST_LOOK_MS = 4000;
const IN_FLIGHT_LOOK_MS = 2000;

export function Checkout() {
  const { params } = useRoute();
  const holdId = params.id ?? '';
  const loc = useLocation();
  const signedIn = useSignedIn();
  const [hold, setHold] = useState<Hold | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);
  const [expired, setExpired] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const [bookingId, setBookingId] = useState<string | null>(null);
  /** The booking whose payment's outcome is not known yet. */
  const [pendingId, setPendingId] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => () => { mounted.current = false; }, []);
  const show = useShowInfo(hold?.show_id);
  const messageRef = useRef<HTMLDivElement>(null);

  async function load(): Promise<void> {
    try {
      const h = await api.getHold(holdId);
      setHold(h);
      setExpired(h.status === 'expired');
      setLoadError(null);
    } catch (e) {
      setLoadError(problemText(e, { NOT_FOUND: 'There is no such hold, or it is not yours.' }));
    }
  }

  useEffect(() => { if (signedIn) void load(); }, [holdId, signedIn?.user_id]);

  // A payment in flight (seen on arrival): follow the hold until its outcome is known.
  useEffect(() => {
    if (hold?.status !== 'paying' || paying) return;
    const id = setTimeout(() => void load(), 2000);
    return () => clearTimeout(id);
  }, [hold, paying]);

  // The hold became a booking: find it, to link to its tickets.
  useEffect(() => {
    if (hold?.status !== 'confirmed') return;
    api.bookings().then((r) => setBookingId(r.bookings.find((b) => b.hold_id === hold.hold_id && b.status !== 'failed')?.booking_id ?? null), () => {});
  }, [hold?.status]);

  useEffect(() => { if (message?.tone === 'error') messageRef.current?.focus(); }, [message]);

  // While the bank's answer is awaited (up to 10 s), or a payment was in flight on
  // arrival: the booking the request entered says whether it is still pending, or was
  // settled another way meanwhile (the bank's webhook), which needs no more waiting.
  const inFlight = paying || hold?.status === 'paying';
  useEffect(() => {
    if (!hold || !inFlight || pendingId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const look = async (): Promise<void> => {
      try {
        const mine = (await api.bookings()).bookings.find((b) => b.hold_id === hold.hold_id && b.status !== 'failed');
        if (!live) return;
        if (mine?.status === 'pending') { setMessage(null); setPendingId(mine.booking_id); return; }
        if (mine) { settled(mine); return; }
      } catch { /* asked again below */ }
      if (live) timer = setTimeout(() => void look(), IN_FLIGHT_LOOK_MS);
    };
    timer = setTimeout(() => void look(), paying ? IN_FLIGHT_FIRST_LOOK_MS : 0);
    return () => { live = false; clearTimeout(timer); };
  }, [hold?.hold_id, inFlight, pendingId]);

  // A pending booking followed until its outcome is known (1 s, 2 s … at most 5 s apart).
  useEffect(() => {
    if (!pendingId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    let attempt = 0;
    const follow = async (): Promise<void> => {
      let retryAfter: number | null = null;
      try {
        const b = await api.booking(pendingId);
        if (!live) return;
        if (b.status !== 'pending') { settled(b); return; }
      } catch (e) {
        if (e instanceof ApiError) retryAfter = e.retryAfterSeconds;
      }
      if (live) timer = setTimeout(() => void follow(), backoffMs(attempt++, retryAfter));
    };
    timer = setTimeout(() => void follow(), backoffMs(attempt++));
    return () => { live = false; clearTimeout(timer); };
  }, [pendingId]);

  /** The payment's outcome is known: a declined one is said here, any other on its booking's page. */
  function settled(b: Booking): void {
    if (!mounted.current) return;
    if (b.status !== 'failed') {
      loc.route(bookingPath(b.booking_id));
      return;
    }
    setPendingId(null);
    setMessage({ tone: 'error', text: `${declinedText(b.failure)} Nothing was charged. Your seats are still held: choose another payment method and pay again.` });
    void load();
  }

  async function pay(method: string): Promise<void> {
    if (!hold || paying) return;
    const key = paymentAttempt.keyFor(hold.hold_id, method);
    setPaying(true);
    setMessage({ tone: 'info', text: 'Paying… waiting for the bank’s answer.' });
    try {
      const booking = await api.book(hold.hold_id, method, key, waitingRoom.admission(hold.show_id));
      paymentAttempt.settle(hold.hold_id);
      if (!mounted.current) return;
      if (booking.status === 'pending') {
        setMessage(null);
        setPendingId(booking.booking_id);
        await load();
        return;
      }
      settled(booking);
    } catch (e) {
      const said = failureMessage(e, hold);
      if (!mounted.current) return;
      setMessage(said);
      if (e instanceof ApiError && e.code === 'HOLD_EXPIRED') setExpired(true);
    } finally {
      setPaying(false);
    }
  }

  function failureMessage(e: unknown, h: Hold): Message {
    if (isNetworkError(e)) {
      return { tone: 'error', text: 'The payment got no answer. Press Pay again with the same method: retrying is safe, you will not be charged twice.' };
    }
    if (!(e instanceof ApiError)) return { tone: 'error', text: problemText(e) };
    // Refusals that are not stored under the key: the same attempt may be retried with it.
    if (e.status === 503 || e.status === 429) return { tone: 'error', text: busyText(e) };
    if (e.code === 'IDEMPOTENCY_KEY_IN_FLIGHT') {
      return { tone: 'error', text: `This payment is still being processed: press Pay again in ${e.retryAfterSeconds ?? 2} s to see its outcome.` };
    }
    if (e.code === 'QUEUE_REQUIRED') {
      return { tone: 'error', text: 'Your admission from the waiting room has expired.', link: { href: `${showPath(h.show_id)}/queue`, label: 'Back to the waiting room' } };
    }
    paymentAttempt.settle(h.hold_id);
    if (e.code === 'HOLD_EXPIRED') {
      return { tone: 'error', text: 'This hold has expired or was released: nothing was charged.', link: { href: showPath(h.show_id), label: 'Choose seats again' } };
    }
    return { tone: 'error', text: problemText(e) };
  }

  async function release(): Promise<void> {
    if (!hold) return;
    try {
      await api.releaseHold(hold.hold_id);
      paymentAttempt.settle(hold.hold_id);
      setMessage(null);
      await load();
    } catch (e) {
      setMessage({ tone: 'error', text: problemText(e, {
        HOLD_PAYING: 'A payment for these seats is in flight: they cannot be released now.',
        HOLD_CONFIRMED: 'These seats are already booked: cancel the booking instead.',
      }) });
      await load();
    }
  }

  if (!signedIn) return null;
  if (loadError) {
    return <section><h1>Checkout</h1><p class="error" role="alert">{loadError}</p><p><a href="/">See what's on</a></p></section>;
  }
  if (!hold) return <section><h1>Checkout</h1><p role="status">Loading your seats…</p></section>;

  const open = hold.status === 'active' && !expired && !pendingId;
  const amount = money(hold.amount, hold.currency);
  return (
    <section class="checkout">
      <h1>Checkout</h1>
      <ShowLine show={show} />
      <div class="panel hold-summary">
        <h2>Your seats</h2>
        <ul class="seat-list">{hold.seats.map((s) => <li key={s}>{seatLabel(s)}</li>)}</ul>
        <p class="total">Total <strong>{amount}</strong></p>
        {open && <HoldCountdown expiresAt={hold.expires_at} timeZone={show?.venue.timezone ?? null} onExpired={() => { if (!paying) { setExpired(true); setTimeout(() => void load(), 1500); } }} />}
      </div>

      <div ref={messageRef} tabIndex={-1} class={message ? `message ${message.tone}` : 'message'} role="status">
        {message && <p role={message.tone === 'error' ? 'alert' : undefined}>{message.text}{message.link && <> <a href={message.link.href}>{message.link.label}</a></>}</p>}
      </div>

      {open && (
        <>
          <PaymentForm amountText={amount} paying={paying} onPay={(m) => void pay(m)} />
          <p><button type="button" class="secondary" onClick={() => void release()} aria-disabled={paying ? 'true' : undefined}>Release seats</button></p>
        </>
      )}
      {hold.status !== 'confirmed' && (pendingId !== null || (hold.status === 'paying' && !paying)) && <PaymentPending bookingHref={pendingId && bookingPath(pendingId)} />}
      {hold.status === 'confirmed' && (
        <p>These seats are booked.{' '}
          {bookingId ? <a href={`/bookings/${encodeURIComponent(bookingId)}`}>See your booking and tickets</a> : <a href="/bookings">See your bookings</a>}
        </p>
      )}
      {hold.status === 'released' && <p>You released these seats. <a href={showPath(hold.show_id)}>Choose seats again</a></p>}
      {(hold.status === 'expired' || (hold.status === 'active' && expired)) && !message?.link && (
        <p>This hold has expired: the seats are no longer reserved for you. <a href={showPath(hold.show_id)}>Choose seats again</a></p>
      )}
    </section>
  );
}
