// The typed client every page uses: one function per API route, answers typed by
// ./types.ts, errors thrown as ApiError carrying the problem+json body.
import type {
  Admission, Booking, CatalogEvent, Hall, HallDetail, Hold, Layout, ListedEvent, PaymentMethods, Problem, QueueAdminView, QueueJoin,
  QueueStatus, SeatMap, Sections, Session, Show, ShowCancellation, ShowSettings, ShowStats, Ticket, Venue, WaitlistEntry,
} from './types';

export class ApiError extends Error {
  constructor(readonly problem: Problem, readonly retryAfterSeconds: number | null) {
    super(problem.detail ?? problem.title ?? problem.code);
  }
  get code(): string { return this.problem.code; }
  get status(): number { return this.problem.status; }
}

const SESSION_KEY = 'boxoffice.session';

/** The signed-in person, kept in this browser's localStorage. */
export const session = {
  get(): Session | null {
    const raw = localStorage.getItem(SESSION_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  },
  set(s: Session | null): void {
    if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
    else localStorage.removeItem(SESSION_KEY);
    window.dispatchEvent(new Event('boxoffice:session'));
  },
};

type Query = Record<string, string | undefined>;

interface CallOptions { body?: unknown; query?: Query; headers?: Record<string, string>; signal?: AbortSignal }

function urlOf(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  const s = session.get();
  if (s) headers.authorization = `Bearer ${s.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(urlOf(path, opts.query), {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
  const retryAfter = res.headers.get('retry-after');
  if (!res.ok) {
    let problem: Problem;
    try {
      problem = (await res.json()) as Problem;
    } catch {
      problem = { status: res.status, code: res.status >= 500 ? 'UNAVAILABLE' : 'UNKNOWN', title: res.statusText };
    }
    if (res.status === 401 && s && path !== '/v1/sessions') session.set(null);
    throw new ApiError(problem, retryAfter ? Number(retryAfter) : null);
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

const admissionHeader = (admission?: string | null): Record<string, string> =>
  admission ? { 'admission-token': admission } : {};

export const api = {
  // Accounts
  signUp: (email: string, password: string, name?: string) =>
    call<{ user_id: string; token: string }>('POST', '/v1/users', { body: { email, password, ...(name ? { name } : {}) } }),
  signIn: (email: string, password: string) => call<Session>('POST', '/v1/sessions', { body: { email, password } }),

  // Catalog (public)
  events: (q: { city?: string; q?: string; date?: string } = {}) => call<{ events: ListedEvent[] }>('GET', '/v1/events', { query: q }),
  shows: (q: { city?: string; event?: string; date?: string; q?: string } = {}) => call<{ shows: Show[] }>('GET', '/v1/shows', { query: q }),
  show: (id: string) => call<Show>('GET', `/v1/shows/${encodeURIComponent(id)}`),
  seatMap: (id: string, section?: string) => call<SeatMap>('GET', `/v1/shows/${encodeURIComponent(id)}/seats`, { query: { section } }),
  sections: (id: string) => call<Sections>('GET', `/v1/shows/${encodeURIComponent(id)}/sections`),
  /** The live map's URL for an EventSource (see ../live/seatStream.ts). */
  seatStreamUrl: (id: string, section?: string) => urlOf(`/v1/shows/${encodeURIComponent(id)}/seats/stream`, { section }),

  // Holds and bookings
  hold: (showId: string, seats: string[], admission?: string | null) =>
    call<Hold>('POST', `/v1/shows/${encodeURIComponent(showId)}/holds`, { body: { seats }, headers: admissionHeader(admission) }),
  /** Best available: the service chooses `count` adjacent seats and holds them. */
  holdBest: (showId: string, best: { count: number; section?: string; max_price?: number }, admission?: string | null) =>
    call<Hold>('POST', `/v1/shows/${encodeURIComponent(showId)}/holds`, { body: { best_available: best }, headers: admissionHeader(admission) }),
  getHold: (id: string) => call<Hold>('GET', `/v1/holds/${encodeURIComponent(id)}`),
  releaseHold: (id: string) => call<void>('DELETE', `/v1/holds/${encodeURIComponent(id)}`),
  book: (holdId: string, paymentMethod: string, idempotencyKey: string, admission?: string | null) =>
    call<Booking>('POST', '/v1/bookings', {
      body: { hold_id: holdId, payment_method: paymentMethod },
      headers: { 'idempotency-key': idempotencyKey, ...admissionHeader(admission) },
    }),
  paymentMethods: () => call<PaymentMethods>('GET', '/v1/payments/methods'),
  booking: (id: string) => call<Booking>('GET', `/v1/bookings/${encodeURIComponent(id)}`),
  bookings: () => call<{ bookings: Booking[] }>('GET', '/v1/bookings'),
  cancelBooking: (id: string) => call<Booking>('POST', `/v1/bookings/${encodeURIComponent(id)}/cancel`),
  tickets: (bookingId: string) => call<{ tickets: Ticket[] }>('GET', `/v1/bookings/${encodeURIComponent(bookingId)}/tickets`),

  // Waiting room
  joinQueue: (showId: string) => call<QueueJoin>('POST', `/v1/shows/${encodeURIComponent(showId)}/queue`),
  queueStatus: (showId: string) => call<QueueStatus>('GET', `/v1/shows/${encodeURIComponent(showId)}/queue`),
  admit: (showId: string, queueToken: string) =>
    call<Admission>('POST', `/v1/shows/${encodeURIComponent(showId)}/queue/admit`, { body: { queue_token: queueToken } }),

  // The waiting list of a sold-out show
  joinWaitlist: (showId: string, count: number) => call<WaitlistEntry>('POST', `/v1/shows/${encodeURIComponent(showId)}/waitlist`, { body: { count } }),
  myWaitlistEntry: (showId: string) => call<WaitlistEntry>('GET', `/v1/shows/${encodeURIComponent(showId)}/waitlist/me`),
  leaveWaitlist: (showId: string) => call<void>('DELETE', `/v1/shows/${encodeURIComponent(showId)}/waitlist/me`),

  // Operators
  admin: {
    venues: (cursor?: string) => call<{ venues: Venue[]; next_cursor: string | null }>('GET', '/v1/admin/venues', { query: { cursor } }),
    createVenue: (v: { name: string; city: string; timezone?: string }) => call<Venue>('POST', '/v1/admin/venues', { body: v }),
    halls: (venueId?: string, cursor?: string) =>
      call<{ halls: Hall[]; next_cursor: string | null }>('GET', '/v1/admin/halls', { query: { venue_id: venueId, cursor } }),
    hall: (id: string) => call<HallDetail>('GET', `/v1/admin/halls/${encodeURIComponent(id)}`),
    createHall: (h: { venue_id: string; name: string; layout: Layout }) => call<Hall>('POST', '/v1/admin/halls', { body: h }),
    events: (cursor?: string) => call<{ events: CatalogEvent[]; next_cursor: string | null }>('GET', '/v1/admin/events', { query: { cursor } }),
    createEvent: (e: { title: string; kind?: string; duration_minutes?: number }) => call<CatalogEvent>('POST', '/v1/admin/events', { body: e }),
    shows: (q: { venue_id?: string; hall_id?: string; event_id?: string; cursor?: string } = {}) =>
      call<{ shows: Show[]; next_cursor: string | null }>('GET', '/v1/admin/shows', { query: q }),
    createShow: (s: ShowSettings) => call<Show>('POST', '/v1/admin/shows', { body: s }),
    updateShow: (id: string, patch: Partial<ShowSettings>) => call<Show>('PATCH', `/v1/admin/shows/${encodeURIComponent(id)}`, { body: patch }),
    stats: (showId: string) => call<ShowStats>('GET', `/v1/admin/shows/${encodeURIComponent(showId)}/stats`),
    cancelShow: (showId: string, reason: string) =>
      call<{ show_id: string; status: 'cancelled'; bookings_to_refund: number }>('POST', `/v1/admin/shows/${encodeURIComponent(showId)}/cancel`, { body: { reason } }),
    cancellation: (showId: string) => call<ShowCancellation>('GET', `/v1/admin/shows/${encodeURIComponent(showId)}/cancellation`),
    queue: (showId: string) => call<QueueAdminView>('GET', `/v1/admin/shows/${encodeURIComponent(showId)}/queue`),
    controlQueue: (showId: string, change: { action?: 'pause' | 'resume'; max_admit_per_minute?: number | null }) =>
      call<QueueAdminView>('POST', `/v1/admin/shows/${encodeURIComponent(showId)}/queue`, { body: change }),
  },
};
