// The buyer's chosen seats with their prices and total, at most the show's per-buyer
// limit, and the button that holds them.
import type { Seat } from '../../api/types';
import { priceText, shortSeatName } from './seatNames';

export interface SelectionPanelProps {
  seats: Seat[];
  currency: string;
  limit: number;
  signedIn: boolean;
  holding: boolean;
  onRemove: (seatId: string) => void;
  onHold: () => void;
}

export function SelectionPanel({ seats, currency, limit, signedIn, holding, onRemove, onHold }: SelectionPanelProps) {
  const total = seats.reduce((sum, s) => sum + (s.price ?? 0), 0);
  return (
    <section class="selection" aria-labelledby="selection-heading">
      <h2 id="selection-heading">Your seats</h2>
      {seats.length === 0
        ? <p>No seats chosen yet. Pick up to {limit} on the map.</p>
        : (
          <ul class="selection-list">
            {seats.map((s) => (
              <li key={s.seat}>
                <span>{shortSeatName(s)}{s.accessible ? ' (accessible)' : ''}</span>
                <span class="selection-price">{s.price === null ? '' : priceText(s.price, currency)}</span>
                <button type="button" class="link" onClick={() => onRemove(s.seat)} aria-label={`Remove ${shortSeatName(s)}`}>Remove</button>
              </li>
            ))}
          </ul>
        )}
      <p class="selection-total">
        <span>Total ({seats.length} of at most {limit})</span>
        <strong>{priceText(total, currency)}</strong>
      </p>
      <button type="button" class="hold-button" onClick={onHold} disabled={seats.length === 0 || holding}>
        {holding ? 'Holding…' : 'Hold seats'}
      </button>
      {!signedIn && <p class="hint">You will be asked to sign in first.</p>}
    </section>
  );
}
