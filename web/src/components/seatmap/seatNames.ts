// What a seat is called: its accessible name on the map, and the short name used in messages.
import type { Seat } from '../../api/types';
import { money } from '../../format';
import { seatName } from '../../seatLabel';

/** "Row F, seat 7" in messages and the selection: the one way every page writes a seat. */
export const shortSeatName = seatName;

// A big section's map names thousands of seats at a handful of prices: format each price once.
const priceTexts = new Map<string, string>();
export function priceText(minor: number, currency: string): string {
  const key = `${currency} ${minor}`;
  let text = priceTexts.get(key);
  if (text === undefined) priceTexts.set(key, (text = money(minor, currency)));
  return text;
}

const STATUS_WORDS = { available: 'available', held: 'held by someone else', booked: 'booked' } as const;

/** "Row F, seat 7, €12.00, accessible seat, available" (the map's accessible name for a seat). */
export function seatLabel(seat: Seat, currency: string, selected: boolean, mine = false): string {
  const parts = [
    seatName(seat),
    seat.price === null ? 'not on sale' : priceText(seat.price, currency),
  ];
  if (seat.accessible) parts.push('accessible seat');
  parts.push(selected ? 'selected' : mine && seat.status === 'held' ? 'held by you' : STATUS_WORDS[seat.status]);
  return parts.join(', ');
}

/** Why a seat cannot be selected, or null when it can. */
export function whyUnavailable(seat: Seat, mine = false): string | null {
  if (seat.status === 'held' && mine) return `${shortSeatName(seat)} is already in your hold: go on to checkout to pay for it.`;
  if (seat.status === 'held') return `${shortSeatName(seat)} is held by someone else.`;
  if (seat.status === 'booked') return `${shortSeatName(seat)} is already booked.`;
  if (seat.price === null) return `${shortSeatName(seat)} is not on sale.`;
  return null;
}
