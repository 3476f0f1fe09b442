// The currency a new show starts with: the venue's last show's, else the one of the
// venue's country as its time zone tells it. A zone this table does not know (or UTC)
// gives none: the operator types it, rather than find euros for a hall in Pune.
// (Imports carry `.js` so the tests, type-checked as Node ESM, can import this file too.)
import type { Show } from '../api/types.js';

const EURO_ZONES = ['Amsterdam', 'Andorra', 'Athens', 'Berlin', 'Bratislava', 'Brussels', 'Dublin', 'Helsinki', 'Lisbon', 'Ljubljana',
  'Luxembourg', 'Madrid', 'Malta', 'Monaco', 'Paris', 'Riga', 'Rome', 'San_Marino', 'Tallinn', 'Vatican', 'Vienna', 'Vilnius', 'Zagreb',
  'Busingen', 'Mariehamn'].map((c) => `Europe/${c}`).concat(['Atlantic/Madeira', 'Atlantic/Azores', 'Atlantic/Canary', 'Africa/Ceuta', 'Asia/Nicosia', 'Asia/Famagusta']);

const BY_ZONE: Record<string, string> = {
  ...Object.fromEntries(EURO_ZONES.map((z) => [z, 'EUR'])),
  'Europe/London': 'GBP', 'Europe/Zurich': 'CHF', 'Europe/Stockholm': 'SEK', 'Europe/Oslo': 'NOK', 'Europe/Copenhagen': 'DKK',
  'Europe/Warsaw': 'PLN', 'Europe/Prague': 'CZK', 'Europe/Budapest': 'HUF', 'Europe/Bucharest': 'RON', 'Europe/Sofia': 'BGN',
  'Europe/Istanbul': 'TRY', 'Atlantic/Reykjavik': 'ISK', 'Europe/Belgrade': 'RSD', 'Europe/Kyiv': 'UAH', 'Europe/Kiev': 'UAH',
  'Asia/Kolkata': 'INR', 'Asia/Calcutta': 'INR', 'Asia/Tokyo': 'JPY', 'Asia/Seoul': 'KRW', 'Asia/Shanghai': 'CNY', 'Asia/Hong_Kong': 'HKD',
  'Asia/Singapore': 'SGD', 'Asia/Taipei': 'TWD', 'Asia/Bangkok': 'THB', 'Asia/Jakarta': 'IDR', 'Asia/Manila': 'PHP', 'Asia/Kuala_Lumpur': 'MYR',
  'Asia/Dubai': 'AED', 'Asia/Riyadh': 'SAR', 'Asia/Jerusalem': 'ILS', 'Asia/Karachi': 'PKR', 'Asia/Dhaka': 'BDT', 'Asia/Colombo': 'LKR',
  'Asia/Kathmandu': 'NPR', 'Asia/Ho_Chi_Minh': 'VND',
  'Africa/Johannesburg': 'ZAR', 'Africa/Lagos': 'NGN', 'Africa/Nairobi': 'KES', 'Africa/Cairo': 'EGP', 'Africa/Casablanca': 'MAD',
  'America/Sao_Paulo': 'BRL', 'America/Mexico_City': 'MXN', 'America/Argentina/Buenos_Aires': 'ARS', 'America/Santiago': 'CLP',
  'America/Bogota': 'COP', 'America/Lima': 'PEN',
  'America/Toronto': 'CAD', 'America/Vancouver': 'CAD', 'America/Edmonton': 'CAD', 'America/Winnipeg': 'CAD', 'America/Halifax': 'CAD',
  'America/St_Johns': 'CAD', 'America/Regina': 'CAD',
  'America/New_York': 'USD', 'America/Chicago': 'USD', 'America/Denver': 'USD', 'America/Los_Angeles': 'USD', 'America/Phoenix': 'USD',
  'America/Anchorage': 'USD', 'America/Detroit': 'USD', 'America/Boise': 'USD', 'Pacific/Honolulu': 'USD', 'America/Puerto_Rico': 'USD',
  'Pacific/Auckland': 'NZD',
};

/** The currency of the country a time zone belongs to, when this table knows it. */
export function zoneCurrency(timezone: string): string | null {
  if (BY_ZONE[timezone]) return BY_ZONE[timezone]!;
  if (timezone.startsWith('Australia/')) return 'AUD';
  if (/^America\/(Indiana|Kentucky|North_Dakota)\//.test(timezone)) return 'USD';
  return null;
}

/** The venue's latest show's currency (by start), else its zone's; null when neither says. */
export function venueCurrency(venueShows: readonly Pick<Show, 'starts_at' | 'currency'>[], timezone: string): string | null {
  let last: Pick<Show, 'starts_at' | 'currency'> | null = null;
  for (const s of venueShows) if (!last || s.starts_at > last.starts_at) last = s;
  return last?.currency ?? zoneCurrency(timezone);
}
