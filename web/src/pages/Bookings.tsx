// My bookings, newest first: show, seats, amount, status, refund, and a link to each.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Booking } from '../api/types';
import { refundText, statusText } from '../bookingStatus';
import { ShowLine } from '../components/ShowLine';
import { money } from '../format';
import { problemText } from '../problemText';
import { seatList } from '../seatLabel';
import { useShowInfo } from '../showInfo';
import { useSignedIn } from '../signedIn';
import '../styles/checkout.css';

function BookingCard({ booking }: { booking: Booking }) {
  const show = useShowInfo(booking.show_id);
  const refund = refundText(booking);
  const title = show?.event.title ?? 'Booking';
  return (
    <li class="card booking-card">
      <h2><a href={`/bookings/${encodeURIComponent(booking.booking_id)}`}>{title}<span class="visually-hidden">, {seatList(booking.seats)}</span></a></h2>
      <ShowLine show={show} title={false} />
      <p>{seatList(booking.seats)}</p>
      <p><strong>{money(booking.amount, booking.currency)}</strong> · <span class={`status status-${booking.status}`}>{statusText(booking.status)}</span></p>
      {refund && <p>{refund}</p>}
    </li>
  );
}

export function Bookings() {
  const signedIn = useSignedIn();
  const [bookings, setBookings] = useState<Booking[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!signedIn) return;
    api.bookings().then((r) => setBookings(r.bookings), (e) => setError(problemText(e)));
  }, [signedIn?.user_id]);

  if (!signedIn) return null;
  return (
    <section>
      <h1>My bookings</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {!bookings && !error && <p role="status">Loading your bookings…</p>}
      {bookings?.length === 0 && <p>You have no bookings yet. <a href="/">See what's on</a></p>}
      {bookings && bookings.length > 0 && <ul class="cards">{bookings.map((b) => <BookingCard key={b.booking_id} booking={b} />)}</ul>}
    </section>
  );
}
