// The audit's checks, on what the API and the payment simulator said after the
// run (read by auditRead.ts). Pure: crafted books make any check fail in a test.
//   1. no seat is in two confirmed bookings, and the service counts no seat sold twice;
//   2. the seats the maps show booked are exactly the seats of confirmed bookings;
//   3. every succeeded PaymentIntent belongs to a confirmed booking or has a refund;
//   4. no booking (or hold) has two succeeded PaymentIntents that were not refunded;
//   5. no hold is left `paying`, no booking `pending`.
// Only this service's charges are checked: one whose booking the service does not
// know (another client of the same simulator) is reported apart, never as lost money.

export interface ChargeRecord { id: string; status: string; amount: number; currency: string; bookingId: string | null; holdId: string | null }
export interface RefundRecord { id: string; paymentIntent: string; status: string; amount: number }
export interface BookingRecord { id: string; showId: string; holdId: string; status: string; seats: string[] }
export interface MapRecord { showId: string; booked: string[]; doubleSold: number }
export interface HoldRecord { id: string; status: string }

export interface Books {
  charges: ChargeRecord[];
  refunds: RefundRecord[];
  /** Every booking the charges and the buyers name, read back from the API. */
  bookings: BookingRecord[];
  /** Booking ids named by charges that the service says it never had (404, or not an id it could give: 400). */
  unknownBookings: string[];
  maps: MapRecord[];
  holds: HoldRecord[];
}

export interface AuditCheck { name: string; count: number; examples: string[] }
/** Charges on the simulator not made by this service: succeeded ones summed by currency (minor units). */
export interface ForeignCharges { count: number; succeeded: number; amounts: Record<string, number>; examples: string[] }
export interface AuditResult { ok: boolean; checks: AuditCheck[]; foreign: ForeignCharges }

const EXAMPLES = 5;

function check(name: string, found: string[]): AuditCheck {
  return { name, count: found.length, examples: found.slice(0, EXAMPLES) };
}

export function audit(books: Books): AuditResult {
  const bookingById = new Map(books.bookings.map((b) => [b.id, b]));
  const confirmed = books.bookings.filter((b) => b.status === 'confirmed');

  const owner = new Map<string, string>();
  const twice: string[] = [];
  for (const b of confirmed) {
    for (const seat of b.seats) {
      const key = `${b.showId}/${seat}`;
      const first = owner.get(key);
      if (first !== undefined) twice.push(`${key} in ${first} and ${b.id}`);
      else owner.set(key, b.id);
    }
  }
  for (const m of books.maps) if (m.doubleSold > 0) twice.push(`${m.showId}: stats double_sold ${m.doubleSold}`);

  const mapMismatch: string[] = [];
  for (const m of books.maps) {
    const booked = new Set(m.booked);
    const sold = new Set(confirmed.filter((b) => b.showId === m.showId).flatMap((b) => b.seats));
    for (const s of booked) if (!sold.has(s)) mapMismatch.push(`${m.showId}/${s} booked on the map, in no confirmed booking`);
    for (const s of sold) if (!booked.has(s)) mapMismatch.push(`${m.showId}/${s} in a confirmed booking, not booked on the map`);
  }

  const refunded = new Set(books.refunds.filter((r) => r.status === 'succeeded' || r.status === 'pending').map((r) => r.paymentIntent));
  const unknown = new Set(books.unknownBookings);
  const isForeign = (c: ChargeRecord) => c.bookingId === null || unknown.has(c.bookingId);
  const foreign = foreignCharges(books.charges.filter(isForeign));
  const succeeded = books.charges.filter((c) => c.status === 'succeeded' && !isForeign(c));
  const orphans: string[] = [];
  for (const c of succeeded) {
    if (refunded.has(c.id)) continue;
    const b = c.bookingId === null ? undefined : bookingById.get(c.bookingId);
    if (b?.status !== 'confirmed') orphans.push(`${c.id} (booking ${c.bookingId ?? 'none'}: ${b?.status ?? 'not found'})`);
  }

  const kept = succeeded.filter((c) => !refunded.has(c.id));
  const doubleCharged: string[] = [];
  for (const [label, keyOf] of [['booking', (c: ChargeRecord) => c.bookingId], ['hold', (c: ChargeRecord) => c.holdId]] as const) {
    const by = new Map<string, string[]>();
    for (const c of kept) {
      const k = keyOf(c);
      if (k !== null) by.set(k, [...(by.get(k) ?? []), c.id]);
    }
    for (const [k, ids] of by) if (ids.length > 1) doubleCharged.push(`${label} ${k}: ${ids.join(', ')}`);
  }

  const unsettled = [
    ...books.holds.filter((h) => h.status === 'paying').map((h) => `hold ${h.id} paying`),
    ...books.bookings.filter((b) => b.status === 'pending').map((b) => `booking ${b.id} pending`),
  ];

  const checks = [
    check('seats sold twice', twice),
    check('map-booked seats ≠ seats of confirmed bookings', mapMismatch),
    check('charges without a confirmed booking or a refund', orphans),
    check('bookings charged twice', doubleCharged),
    check('seats left paying (holds paying, bookings pending) after the run', unsettled),
  ];
  return { ok: checks.every((c) => c.count === 0), checks, foreign };
}

function foreignCharges(charges: ChargeRecord[]): ForeignCharges {
  const amounts: Record<string, number> = {};
  const succeeded = charges.filter((c) => c.status === 'succeeded');
  for (const c of succeeded) amounts[c.currency] = (amounts[c.currency] ?? 0) + c.amount;
  return { count: charges.length, succeeded: succeeded.length, amounts, examples: charges.slice(0, EXAMPLES).map((c) => `${c.id} (booking ${c.bookingId ?? 'none'})`) };
}

/** A sum in minor units in words: 4200 EUR → "42.00 EUR". */
function money(minor: number, currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
  return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
}

/** The report's and the summary's line on other clients' charges. */
export function foreignLine(f: ForeignCharges): string {
  if (f.count === 0) return 'charges not made by this service: 0';
  const amounts = Object.entries(f.amounts).map(([currency, minor]) => money(minor, currency)).join(' + ') || 'nothing';
  return `charges not made by this service: ${f.count} (${f.succeeded} succeeded, ${amounts}; their bookings are not this service's, so they are not audited): ${f.examples.join('; ')}`;
}
