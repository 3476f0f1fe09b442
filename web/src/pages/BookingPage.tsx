// One booking (/bookings/:id): follows a pending payment until its outcome (asking
// again after 1 s, 2 s … at most 5 s), then the tickets until they are issued; and
// cancelling with its refund.
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, ApiError } from '../api/client';
import type { Booking, Ticket } from '../api/types';
import { backoffMs, refundText, statusText } from '../bookingStatus';
import { CancelBooking } from '../components/CancelBooking';
import { PaymentPending } from '../components/PaymentPending';
import { ShowLine } from '../components/ShowLine';
import { TicketList } from '../components/TicketList';
import { dateTime, money } from '../format';
import { declinedText, problemText } from '../problemText';
import { seatList } from '../seatLabel';
import { useShowInfo } from '../showInfo';
import { useSignedIn } from '../signedIn';
import '../styles/checkout.css';

/** A refusal that asking again will not change (not found, not yours). */
const final = (e: unknown) => e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429 && e.status !== 408;

export function BookingPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const signedIn = useSignedIn();
  const [booking, setBooking] = useState<Booking | null>(null);
  const [tickets, setTickets] = useState<Ticket[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [reconnecting, setReconnecting] = useState(false);
  const [follow, setFollow] = useState(0);
  const show = useShowInfo(booking?.show_id);

  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    const later = (step: () => Promise<void>, retryAfter?: number | null) => { timer = setTimeout(() => void step(), backoffMs(attempt++, retryAfter)); };
    const failed = (e: unknown, step: () => Promise<void>) => {
      if (!live) return;
      if (final(e)) { setLoadError(problemText(e, { NOT_FOUND: 'There is no such booking, or it is not yours.' })); return; }
      setReconnecting(true);
      later(step, e instanceof ApiError ? e.retryAfterSeconds : null);
    };
    const followTickets = async (): Promise<void> => {
      try {
        const r = await api.tickets(id);
        if (!live) return;
        setReconnecting(false);
        setTickets(r.tickets);
        if (r.tickets.length === 0) later(followTickets);
      } catch (e) { failed(e, followTickets); }
    };
    const followBooking = async (): Promise<void> => {
      try {
        const b = await api.booking(id);
        if (!live) return;
        setReconnecting(false);
        setBooking(b);
        if (b.status === 'pending' || b.refund?.status === 'pending') return later(followBooking);
        if (b.status === 'confirmed') { attempt = 0; return followTickets(); }
      } catch (e) { failed(e, followBooking); }
    };
    void followBooking();
    return () => { live = false; clearTimeout(timer); };
  }, [id, signedIn?.user_id, follow]);

  if (!signedIn) return null;
  if (loadError) return <section><h1>Booking</h1><p class="error" role="alert">{loadError}</p><p><a href="/bookings">My bookings</a></p></section>;
  if (!booking) return <section><h1>Booking</h1><p role="status">Loading your booking…</p></section>;

  const refund = refundText(booking);
  return (
    <section class="booking">
      <h1>{show ? `Booking: ${show.event.title}` : 'Booking'}</h1>
      <ShowLine show={show} title={false} />
      <dl class="facts panel">
        <dt>Status</dt><dd class={`status status-${booking.status}`}>{statusText(booking.status)}{booking.cancelled_by === 'organiser' ? ' by the organiser: the show was cancelled' : ''}</dd>
        <dt>Seats</dt><dd>{seatList(booking.seats)}</dd>
        <dt>Amount</dt><dd>{money(booking.amount, booking.currency)}</dd>
        {booking.created_at && show && <><dt>Booked</dt><dd>{dateTime(booking.created_at, show.venue.timezone)}</dd></>}
        {refund && <><dt>Refund</dt><dd>{refund}</dd></>}
      </dl>
      <div role="status" class="follow">
        {reconnecting && <p>Reconnecting…</p>}
      </div>
      {booking.status === 'pending' && <PaymentPending />}
      {booking.status === 'failed' && (
        <p class="error">{declinedText(booking.failure)} Nothing was charged.{' '}
          <a href={`/holds/${encodeURIComponent(booking.hold_id)}`}>Try another payment method</a> while your seats are still held.</p>
      )}
      {booking.status === 'refunded' && (
        <p>The payment went through, but the seats could no longer be booked, so it was refunded in full.</p>
      )}
      {booking.status === 'confirmed' && (
        <>
          <section aria-labelledby="tickets-heading">
            <h2 id="tickets-heading">Tickets</h2>
            <TicketList tickets={tickets} />
          </section>
          <CancelBooking booking={booking} show={show} onCancelled={(b) => { setBooking(b); setTickets(null); setFollow((n) => n + 1); }} />
        </>
      )}
      {booking.status === 'cancelled' && (booking.cancelled_by === 'organiser'
        ? <p class="notice" role="note">This show was cancelled by the organiser, so your booking is cancelled and {money(booking.amount, booking.currency)} is refunded in full. Its tickets are void.</p>
        : <p>This booking was cancelled: its tickets are void and its seats were released.</p>)}
      <p><a href="/bookings">All my bookings</a></p>
    </section>
  );
}
