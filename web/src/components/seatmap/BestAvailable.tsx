// "Best available" beside the seat map: the buyer says how many seats (and, if they
// like, which section or up to what price) and the service chooses adjacent seats and
// holds them in one step (POST /v1/shows/{id}/holds with best_available). The seats it
// chose are then shown on the map as the buyer's, with the way to checkout.
import { useState } from 'preact/hooks';
import type { Hold, SectionSummary } from '../../api/types';
import { priceText } from './seatNames';
import { seatList } from '../../seatLabel';
import '../../styles/bestAvailable.css';

export interface BestAvailableRequest {
  count: number;
  section?: string;
  max_price?: number;
}

export interface BestAvailableProps {
  limit: number;
  currency: string;
  /** The show's prices, lowest first: the "up to" choices. */
  prices: number[];
  /** The stadium's sections (none in a cinema), and the one on screen. */
  sections: SectionSummary[];
  section: string | null;
  signedIn: boolean;
  busy: boolean;
  /** The hold best available made last on this page, shown until the buyer moves on. */
  held: Hold | null;
  onAsk: (request: BestAvailableRequest) => void;
}

export function BestAvailable({ limit, currency, prices, sections, section, signedIn, busy, held, onAsk }: BestAvailableProps) {
  const [count, setCount] = useState(Math.min(2, limit));
  const [where, setWhere] = useState<string>(section ?? '');
  const [upTo, setUpTo] = useState<string>('');
  const counts = Array.from({ length: Math.min(limit, 10) }, (_, i) => i + 1);
  const ask = (e: Event) => {
    e.preventDefault();
    onAsk({ count, ...(where ? { section: where } : {}), ...(upTo ? { max_price: Number(upTo) } : {}) });
  };
  return (
    <section class="best-available" aria-labelledby="best-heading">
      <h2 id="best-heading">Best available</h2>
      <p class="hint">We choose the best seats together for you and hold them at once.</p>
      <form onSubmit={ask}>
        <label>
          Seats together
          <select value={String(count)} onChange={(e) => setCount(Number((e.target as HTMLSelectElement).value))}>
            {counts.map((n) => <option key={n} value={String(n)}>{n}</option>)}
          </select>
        </label>
        {sections.length > 0 && (
          <label>
            Section
            <select value={where} onChange={(e) => setWhere((e.target as HTMLSelectElement).value)}>
              <option value="">Any section</option>
              {sections.map((s) => <option key={s.section} value={s.section}>Section {s.section}</option>)}
            </select>
          </label>
        )}
        {prices.length > 1 && (
          <label>
            Price per seat
            <select value={upTo} onChange={(e) => setUpTo((e.target as HTMLSelectElement).value)}>
              <option value="">Any price</option>
              {prices.slice(0, -1).map((p) => <option key={p} value={String(p)}>Up to {priceText(p, currency)}</option>)}
            </select>
          </label>
        )}
        <button type="submit" class="hold-button" disabled={busy}>{busy ? 'Finding seats…' : 'Find the best seats'}</button>
      </form>
      {!signedIn && <p class="hint">You will be asked to sign in first.</p>}
      {held && (
        <p class="best-held" role="status">
          Held for you: {seatList(held.seats)}, {priceText(held.amount, held.currency)}, shown on the map.{' '}
          <a href={`/holds/${encodeURIComponent(held.hold_id)}`}>Go to checkout</a>
        </p>
      )}
    </section>
  );
}
