// The shapes of the public HTTP API (the contract the service documents at /openapi.json).
// Field names are the API's own: snake_case, money in minor units beside its currency.

export type Role = 'user' | 'staff' | 'admin';

export interface Session { user_id: string; token: string; role: Role }

export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code: string;
  errors?: { path: string; message: string }[];
  taken?: string[];
  position?: number;
  serving?: number;
  retry_after_seconds?: number;
  [extension: string]: unknown;
}

export interface Venue { id: string; name: string; city: string; timezone: string }
export interface Hall { id: string; venue_id: string; name: string; seat_count: number }
/** A hall with the price tiers its seats use (GET /v1/admin/halls/{id}). */
export interface HallDetail extends Hall { tiers: { tier: string; seats: number }[] }
export interface CatalogEvent { id: string; title: string; kind: string; duration_minutes?: number | null }
export interface ListedEvent extends CatalogEvent { next_show_at: string }

export interface LayoutRow {
  row: string;
  seats: number | number[];
  tier: string;
  section?: string;
  accessible?: number[];
}
/** Where a layout places a section on the venue plan: a rectangle in a 1000 × 1000 box, the stage at its centre. */
export interface SectionPlacement { x: number; y: number; w: number; h: number; angle?: number }
export interface Layout { rows: LayoutRow[]; sections?: { section: string; plan: SectionPlacement }[] }

export interface Show {
  id: string;
  event: CatalogEvent;
  venue: Venue;
  hall: { id: string; name: string };
  starts_at: string;
  sale_opens_at: string | null;
  currency: string;
  price_tiers: Record<string, number>;
  hold_ttl_seconds: number;
  per_user_limit: number;
  cancel_until_minutes_before: number;
  waiting_room: boolean;
  /** `on_sale` or `cancelled`. */
  status?: 'on_sale' | 'cancelled';
}

export interface ShowSettings {
  event_id: string;
  hall_id: string;
  starts_at: string;
  sale_opens_at?: string;
  currency: string;
  price_tiers: Record<string, number>;
  hold_ttl_seconds?: number;
  per_user_limit?: number;
  cancel_until_minutes_before?: number;
  waiting_room?: boolean;
}

export type SeatStatus = 'available' | 'held' | 'booked';

export interface Seat {
  seat: string;
  status: SeatStatus;
  tier: string;
  price: number | null;
  row: string;
  number: number;
  section?: string;
  accessible?: boolean;
}

export interface SeatMap { show_id: string; version: number; seats: Seat[] }

export interface SectionSummary {
  section: string;
  available: number;
  held: number;
  booked: number;
  min_price: number | null;
  max_price: number | null;
  /** Where the hall's layout places it: a rectangle in a 1000 × 1000 box, the stage at its centre. */
  plan?: SectionPlacement;
}
export interface Sections { show_id: string; version: number; sections: SectionSummary[] }

export interface SeatDelta { version: number; changes: { seat: string; status: SeatStatus }[] }

export type HoldStatus = 'active' | 'paying' | 'confirmed' | 'released' | 'expired';
export interface Hold {
  hold_id: string;
  show_id: string;
  seats: string[];
  status: HoldStatus;
  expires_at: string;
  amount: number;
  currency: string;
}

/** Your place on a sold-out show's waiting list; `offered`: a hold (`hold_id`) was made for you, to pay before `expires_at`. */
export interface WaitlistEntry {
  position: number;
  count: number;
  status: 'waiting' | 'offered' | 'lapsed' | 'booked' | 'left';
  hold_id?: string;
  expires_at?: string;
}

export type BookingStatus = 'pending' | 'confirmed' | 'failed' | 'cancelled' | 'refunded';
export interface Booking {
  booking_id: string;
  hold_id: string;
  show_id: string;
  seats: string[];
  amount: number;
  currency: string;
  status: BookingStatus;
  created_at?: string;
  refund?: { status: 'pending' | 'succeeded' | 'failed' | string; amount: number };
  /** Only when failed: why (e.g. card_declined). */
  failure?: { code: string; message: string };
  /** Only when cancelled: by its buyer, or by the organiser (the show was cancelled). */
  cancelled_by?: 'buyer' | 'organiser';
}

/** A cancelled show's refunds, as far as they are (GET /v1/admin/shows/{id}/cancellation). */
export interface ShowCancellation {
  show_id: string;
  status: 'cancelled';
  reason: string;
  cancelled_at: string;
  completed: boolean;
  bookings_to_refund: number;
  bookings_cancelled: number;
  bookings_remaining: number;
  payments_pending: number;
  refunds: { pending: number; succeeded: number; failed: number; amount_refunded: number };
}

export interface Ticket { ticket_id: string; seat: string; code: string; qr_svg_url: string; qr_png_url: string }

export interface QueueStatus {
  serving: number;
  waiting: number;
  admit_rate_per_minute: number | null;
  paused: boolean;
  sold_out: boolean;
  /** When the sale opens; before it, joiners wait in the pre-queue (`opened: false`). */
  sale_opens_at?: string;
  opened?: boolean;
}
/** `position` is null in the pre-queue (before the sale opens: places are drawn at the opening). */
export interface QueueJoin { queue_token: string; position: number | null; pre_queue?: boolean }
export interface Admission { admission_token: string; expires_at: string }
export interface QueueAdminView {
  serving: number;
  waiting: number;
  admitted: number;
  admit_rate_per_minute: number | null;
  paused: boolean;
  max_admit_per_minute: number | null;
  sold_out?: boolean;
  controller: Record<string, unknown>;
  changes?: { by: string; change: Record<string, unknown>; at: string }[];
}

export interface ShowStats {
  seats: { available: number; held: number; booked: number };
  holds_created: number;
  hold_conflicts: number;
  bookings_confirmed: number;
  refunds: number;
  refunds_failed?: number;
  /** Refunds by cause; `seats_lost`: a payment that succeeded after its hold had expired. */
  refunds_by_reason?: { cancellation: number; seats_lost: number };
  double_sold: number;
  [more: string]: unknown;
}

/** GET /v1/payments/methods: the simulator's test methods in test mode; none with real Stripe. */
export interface PaymentMethods { test_mode: boolean; methods: { id: string; description: string }[] }
