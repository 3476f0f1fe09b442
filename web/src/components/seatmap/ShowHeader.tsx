// A show's title, place, time (the venue's time zone) and prices per tier.
import type { Show } from '../../api/types';
import { dateTime } from '../../format';
import { priceText } from './seatNames';

export function saleNote(show: Show, now = Date.now()): string | null {
  if (Date.parse(show.starts_at) <= now) return 'This show has started: seats can no longer be held.';
  if (show.sale_opens_at && Date.parse(show.sale_opens_at) > now) return `Sales open ${dateTime(show.sale_opens_at, show.venue.timezone)}.`;
  return null;
}

export function ShowHeader({ show }: { show: Show }) {
  const note = saleNote(show);
  return (
    <header class="show-header">
      <h1>{show.event.title}</h1>
      <p>
        <time dateTime={show.starts_at}>{dateTime(show.starts_at, show.venue.timezone)}</time>
        {' · '}{show.venue.name}, {show.venue.city} · {show.hall.name}
      </p>
      <ul class="tier-prices" aria-label="Prices">
        {Object.entries(show.price_tiers).map(([tier, price]) => (
          <li key={tier}><span class="tier-name">{tier}</span> {priceText(price, show.currency)}</li>
        ))}
      </ul>
      {note && <p class="sale-note">{note}</p>}
    </header>
  );
}
