// A payment whose outcome the bank has not given yet (booking `pending`), and what that
// means: the service settles it by itself, confirming or refunding, so nobody needs to
// wait on the page or pay again.

interface Props {
  /** The booking's page, when this is not it. */
  bookingHref?: string | null;
}

export function PaymentPending({ bookingHref }: Props) {
  return (
    <section class="panel payment-pending" role="status" aria-labelledby="payment-pending-heading">
      <h2 id="payment-pending-heading">Payment pending</h2>
      <p>Your bank has not answered yet. We will confirm your booking or refund the payment automatically: you either get your seats or your money back.</p>
      <p>
        You can leave this page: {bookingHref ? <><a href={bookingHref}>your booking</a> and <a href="/bookings">My bookings</a> show</> : <><a href="/bookings">My bookings</a> shows</>} the outcome.
        {' '}This page updates by itself; there is no need to pay again.
      </p>
    </section>
  );
}
