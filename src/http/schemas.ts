// JSON schemas of the contract (TypeBox): request validation, response
// serialisation and the OpenAPI document all come from these.
import { Type, type Static } from '@sinclair/typebox';
import { TEST_PAYMENT_METHODS_FOR_PEOPLE } from '../app/paymentMethods.js';

export const Id = Type.String({ minLength: 1, maxLength: 64 });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'The id, as an earlier answer gave it (an opaque string)' }) });
export type IdParams = Static<typeof IdParams>;

const Timestamp = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: 200 });

// Accounts
export const Credentials = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  password: Type.String({ minLength: 8, maxLength: 200 }),
}, { examples: [{ email: 'ada@example.com', password: 'correct-horse-battery' }] });
export const Registration = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  password: Type.String({ minLength: 8, maxLength: 200 }),
  name: Type.Optional(Name),
}, { examples: [{ email: 'ada@example.com', password: 'correct-horse-battery', name: 'Ada' }] });
export type Registration = Static<typeof Registration>;
export type Credentials = Static<typeof Credentials>;
export const RoleChange = Type.Object({ role: Type.Union([Type.Literal('user'), Type.Literal('staff'), Type.Literal('admin')]) }, { examples: [{ role: 'staff' }] });
export type RoleChange = Static<typeof RoleChange>;

// Catalog
export const VenueInput = Type.Object({ name: Name, city: Name, timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { examples: [{ name: 'Rex', city: 'Paris', timezone: 'Europe/Paris' }] });
export type VenueInput = Static<typeof VenueInput>;
export const Venue = Type.Object({ id: Type.String(), name: Type.String(), city: Type.String(), timezone: Type.String() });

const SeatNumber = Type.Integer({ minimum: 1, maximum: 100_000 });
const Label = Type.String({ minLength: 1, maxLength: 16, pattern: '^[A-Za-z0-9]+$' });
export const LayoutRow = Type.Object({
  row: Label,
  seats: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Array(SeatNumber, { minItems: 1, maxItems: 100_000, uniqueItems: true })]),
  tier: Type.String({ minLength: 1, maxLength: 40 }),
  section: Type.Optional(Label),
  accessible: Type.Optional(Type.Array(SeatNumber, { maxItems: 100_000, uniqueItems: true })),
});
/** Where a section is drawn: a rectangle in a 1000 × 1000 box, the stage at its centre (500, 500). */
export const SectionPlacement = Type.Object({
  x: Type.Number({ description: 'Left edge, 0..1000' }),
  y: Type.Number({ description: 'Top edge, 0..1000 (y grows downwards)' }),
  w: Type.Number({ description: 'Width, above 0; x + w ≤ 1000' }),
  h: Type.Number({ description: 'Height, above 0; y + h ≤ 1000' }),
  angle: Type.Optional(Type.Number({ description: 'Degrees clockwise about its own centre, -180..180 (default 0)' })),
});
export const LayoutSection = Type.Object({ section: Label, plan: SectionPlacement });
export const HallInput = Type.Object({
  venue_id: Id,
  name: Name,
  layout: Type.Object({
    rows: Type.Array(LayoutRow, { minItems: 1, maxItems: 10_000 }),
    sections: Type.Optional(Type.Array(LayoutSection, {
      maxItems: 10_000, description: 'Optional: where some or all sections are drawn on the venue plan; the others get a plan derived from their names and prices',
    })),
  }),
}, { examples: [{ venue_id: 'ven_01J9', name: 'Grande salle', layout: { rows: [{ row: 'A', seats: 20, tier: 'premium', accessible: [1, 2] }, { row: 'B', seats: 20, tier: 'standard' }] } }] });
export type HallInput = Static<typeof HallInput>;
export const Hall = Type.Object({ id: Type.String(), venue_id: Type.String(), name: Type.String(), seat_count: Type.Integer() });
export const HallDetail = Type.Object({
  ...Hall.properties,
  tiers: Type.Array(Type.Object({ tier: Type.String(), seats: Type.Integer() }), { description: 'The price tiers its seats use, by name, with their seat counts: a show of this hall needs a price for each' }),
});

export const EventInput = Type.Object({
  title: Name,
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
}, { examples: [{ title: 'Metropolis', kind: 'film', duration_minutes: 153 }] });
export type EventInput = Static<typeof EventInput>;
export const Event = Type.Object({ id: Type.String(), title: Type.String(), kind: Type.String(), duration_minutes: Type.Union([Type.Integer(), Type.Null()]) });

const showSettings = {
  event_id: Id,
  hall_id: Id,
  starts_at: Timestamp,
  sale_opens_at: Type.Optional(Timestamp),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  price_tiers: Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.Integer({ minimum: 0, maximum: 100_000_000_00 }), { minProperties: 1, maxProperties: 100 }),
  hold_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  per_user_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  cancel_until_minutes_before: Type.Optional(Type.Integer({ minimum: 0, maximum: 525_600 })),
  waiting_room: Type.Optional(Type.Boolean()),
  expected_demand: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'How many buyers the show is expected to draw (any unit, kept the same across shows): a new show goes to the shard with the least of it among shows not yet started' })),
};
export const ShowInput = Type.Object({
  ...showSettings,
  shard: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'With SHARD_URLS: the shard to place the show on, instead of the least loaded one' })),
}, {
  examples: [{ event_id: 'evt_01J9', hall_id: 'hal_01J9', starts_at: '2026-12-01T20:00:00Z', sale_opens_at: '2026-11-01T09:00:00Z', currency: 'EUR', price_tiers: { premium: 40000, standard: 25000 } }],
});
export type ShowInput = Static<typeof ShowInput>;
export const ShowPatch = Type.Partial(Type.Object(showSettings), { minProperties: 1 });
export type ShowPatch = Static<typeof ShowPatch>;
export const Show = Type.Object({
  id: Type.String(),
  event: Type.Object({ id: Type.String(), title: Type.String(), kind: Type.String() }),
  venue: Type.Object({ id: Type.String(), name: Type.String(), city: Type.String(), timezone: Type.String() }),
  hall: Type.Object({ id: Type.String(), name: Type.String() }),
  starts_at: Type.String(),
  sale_opens_at: Type.String(),
  currency: Type.String(),
  price_tiers: Type.Record(Type.String(), Type.Integer()),
  hold_ttl_seconds: Type.Integer(),
  per_user_limit: Type.Integer(),
  cancel_until_minutes_before: Type.Integer(),
  waiting_room: Type.Boolean(),
  expected_demand: Type.Integer(),
  status: Type.String({ description: '`on_sale` or `cancelled`' }),
});
const idFilter = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const CityFilter = Type.String({ minLength: 1, maxLength: 200, description: "The venue's city, in any case" });
const DateFilter = Type.String({ format: 'date', description: "A day (YYYY-MM-DD) in the venue's own timezone" });
// At least one letter or digit: a q of punctuation alone has no words to match.
const TitleWords = Type.String({
  minLength: 1, maxLength: 200, pattern: '[\\p{L}\\p{N}]',
  description: "Title words: matches when every word of it begins a word of the event's title, in any case (`moo nor` finds \"Northern Moons\"); a small typo may still match",
});
export const ShowQuery = Type.Object({
  city: Type.Optional(CityFilter),
  event: Type.Optional(idFilter('An event id')),
  movie: Type.Optional(idFilter('Alias of event')),
  date: Type.Optional(DateFilter),
  q: Type.Optional(TitleWords),
});
export type ShowQuery = Static<typeof ShowQuery>;

// Finding things: upcoming events, and the operators' paged lists.
export const EventQuery = Type.Object({ city: Type.Optional(CityFilter), q: Type.Optional(TitleWords), date: Type.Optional(DateFilter) });
export type EventQuery = Static<typeof EventQuery>;
export const UpcomingEvent = Type.Object({
  id: Type.String(),
  title: Type.String(),
  kind: Type.String(),
  next_show_at: Type.String({ format: 'date-time', description: 'The earliest show of this event that matches the filters and has not started' }),
});
const pageParams = {
  // Query values are strings (no type coercion here), so the range 1..200 is a pattern.
  limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9]{2}|200)$', description: 'Items per page, 1 to 200 (default 50)' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page; absent for the first page' })),
};
export const PageQuery = Type.Object(pageParams);
export type PageQuery = Static<typeof PageQuery>;
export const HallListQuery = Type.Object({ ...pageParams, venue_id: Type.Optional(idFilter("Only this venue's halls")) });
export type HallListQuery = Static<typeof HallListQuery>;
export const ShowListQuery = Type.Object({
  ...pageParams,
  venue_id: Type.Optional(idFilter("Only shows in this venue's halls")),
  hall_id: Type.Optional(idFilter('Only shows in this hall')),
  event_id: Type.Optional(idFilter('Only shows of this event')),
});
export type ShowListQuery = Static<typeof ShowListQuery>;
export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' });


// Seat map (the body is built and cached as bytes; this schema documents it)
export const SeatMap = Type.Object({
  show_id: Type.String(),
  version: Type.Integer(),
  seats: Type.Array(Type.Object({
    seat: Type.String(),
    status: Type.Union([Type.Literal('available'), Type.Literal('held'), Type.Literal('booked')]),
    tier: Type.String(),
    price: Type.Union([Type.Integer(), Type.Null()], { description: 'In minor units of the show\'s currency; null only for a tier the show has no price for' }),
    row: Type.String(),
    number: Type.Integer(),
    section: Type.Optional(Type.String()),
    accessible: Type.Optional(Type.Boolean()),
  })),
});

export const SeatMapQuery = Type.Object({
  section: Type.Optional(Type.String({
    minLength: 1, maxLength: 16, pattern: '^[A-Za-z0-9]+$',
    description: "Only this section's seats (a large hall); an unknown section is a 400 VALIDATION_FAILED",
  })),
});
export type SeatMapQuery = Static<typeof SeatMapQuery>;

export const SeatSections = Type.Object({
  show_id: Type.String(),
  version: Type.Integer({ description: "The show's map version, as on the map" }),
  sections: Type.Array(Type.Object({
    section: Type.String(),
    available: Type.Integer(),
    held: Type.Integer(),
    booked: Type.Integer(),
    min_price: Type.Union([Type.Integer(), Type.Null()], { description: "The lowest price among all the section's seats, whatever their status" }),
    max_price: Type.Union([Type.Integer(), Type.Null()], { description: "The highest price among all the section's seats, whatever their status" }),
    plan: Type.Optional(Type.Object(SectionPlacement.properties, { description: "Where the hall's layout places the section on the plan; absent when it does not" })),
  }), { description: 'One per section, in layout order; empty for a hall without sections' }),
});

// Holds
export const BestAvailable = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: 1000, description: 'How many adjacent seats (at most the show\'s per_user_limit)' }),
  section: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Only seats of this section' })),
  tier: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Only seats of this price tier' })),
  max_price: Type.Optional(Type.Integer({ minimum: 0, description: 'Only seats at most this price, in minor units' })),
}, { additionalProperties: false });
export const HoldInput = Type.Union([
  Type.Object({
    seats: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { minItems: 1, maxItems: 1000 }),
  }, { title: 'Chosen seats' }),
  Type.Object({ best_available: BestAvailable }, {
    title: 'Best available',
    description: 'The service picks `count` adjacent seats (one row, consecutive numbers) matching the filters: the first row in layout order that has them, '
      + 'then no single seat left stranded when another choice in the row avoids it, then nearest the row\'s centre.',
  }),
], { examples: [{ seats: ['F7', 'F8'] }, { best_available: { count: 2, section: '101' } }] });
export type HoldInput = Static<typeof HoldInput>;
export const Hold = Type.Object({
  hold_id: Type.String(),
  show_id: Type.String(),
  seats: Type.Array(Type.String()),
  status: Type.String(),
  expires_at: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
});

// Bookings
export const BookingInput = Type.Object({
  hold_id: Id,
  payment_method: Type.String({
    minLength: 1, maxLength: 100,
    description: `A payment method of the provider. The bundled simulator's test methods: ${TEST_PAYMENT_METHODS_FOR_PEOPLE.map(([m, what]) => `\`${m}\` (${what})`).join('; ')}.`,
    examples: [TEST_PAYMENT_METHODS_FOR_PEOPLE[0]![0]],
  }),
}, { examples: [{ hold_id: 'hld_01J9', payment_method: 'pm_card_visa' }] });
export type BookingInput = Static<typeof BookingInput>;
export const Booking = Type.Object({
  booking_id: Type.String(),
  hold_id: Type.String(),
  show_id: Type.String(),
  seats: Type.Array(Type.String()),
  amount: Type.Integer(),
  currency: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  refund: Type.Optional(Type.Object({ status: Type.String(), amount: Type.Integer() })),
  // Only when status is cancelled: `buyer`, or `organiser` (the show was cancelled).
  cancelled_by: Type.Optional(Type.String()),
  // Only when status is failed: why, e.g. card_declined or unknown_payment_method.
  failure: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});

// Tickets
export const Ticket = Type.Object({
  ticket_id: Type.String(),
  seat: Type.String(),
  code: Type.String(),
  qr_svg_url: Type.String(),
  qr_png_url: Type.String(),
});
export const CheckInInput = Type.Object({ code: Type.String({ minLength: 1, maxLength: 4096, description: "The ticket's code (from its QR)" }) }, { examples: [{ code: 'eyJhbGciOiJFZERTQSJ9…' }] });
export type CheckInInput = Static<typeof CheckInInput>;
export const CheckIn = Type.Object({ ticket_id: Type.String(), show_id: Type.String(), seat: Type.String(), checked_in_at: Type.String() });

// The OpenAPI document's error answers. Every error is problem+json; its schema
// lives once under components (app.addSchema) and each route says what the
// status means there.
export const PROBLEM_REF = 'Problem#';
/** An error answer of a route, with what it means on that route. */
export const problemResponse = (description: string) =>
  ({ description, content: { 'application/problem+json': { schema: { $ref: PROBLEM_REF } } } });

/** Answers without a body (204, 304), for the document. */
export const noBody = (description: string) => ({ description, type: 'null' as const });

/** The auth refusals, by who a route is for. */
export const userRefusals = { 401: problemResponse('UNAUTHENTICATED: no valid bearer token (or the account no longer exists)') };
export const roleRefusals = (who: string) => ({
  ...userRefusals,
  403: problemResponse(`FORBIDDEN: the caller is not ${who}`),
});
export const rateLimited = { 429: problemResponse('RATE_LIMITED: too many requests from this account or address; see Retry-After and retry_after') };

/** The waiting room's admission, on holds and bookings of a waiting-room show. */
export const AdmissionHeader = Type.Object({
  'admission-token': Type.Optional(Type.String({
    description: 'For a show with `waiting_room: true`: the admission token from `POST /v1/shows/{id}/queue/admit`, bound to the caller and the show',
  })),
});
