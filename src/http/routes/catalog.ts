import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as catalog from '../../app/catalog.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import {
  Event, EventInput, EventQuery, Hall, HallDetail, HallInput, HallListQuery, IdParams, NextCursor, PageQuery, problemResponse, Show,
  ShowInput, ShowListQuery, ShowPatch, ShowQuery, UpcomingEvent, Venue, VenueInput, roleRefusals,
} from '../schemas.js';

const invalid = problemResponse('VALIDATION_FAILED: a parameter or the body is not valid (unknown query parameters included)');
const adminRefusals = { 400: invalid, ...roleRefusals('an admin') };
const noShow = problemResponse('NOT_FOUND: no such show');

const venueExample = { id: 'ven_01J9', name: 'Rex', city: 'Paris', timezone: 'Europe/Paris' };
const showExample = {
  id: 'shw_01J9', event: { id: 'evt_01J9', title: 'Metropolis', kind: 'film' }, venue: venueExample, hall: { id: 'hal_01J9', name: 'Grande salle' },
  starts_at: '2026-12-01T20:00:00.000Z', sale_opens_at: '2026-11-01T09:00:00.000Z', currency: 'EUR', price_tiers: { standard: 25000 },
  hold_ttl_seconds: 600, per_user_limit: 10, cancel_until_minutes_before: 120, waiting_room: false, status: 'on_sale',
};

const pageOf = (q: { limit?: string; cursor?: string }) => ({ limit: q.limit === undefined ? undefined : Number(q.limit), cursor: q.cursor });

export default async function catalogRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const admin = { onRequest: requireRole(ctx, 'admin') };
  const security = [{ bearer: [] }];

  app.post<{ Body: VenueInput }>('/v1/admin/venues', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'Create a venue', security, body: VenueInput,
      description: '`timezone` is an IANA name (default `UTC`): show dates are matched in it.',
      response: { 201: { ...Venue, description: 'The venue', examples: [venueExample] }, ...adminRefusals },
    },
  }, async (req, reply) => reply.code(201).send(await catalog.createVenue(ctx, req.body)));

  app.post<{ Body: HallInput }>('/v1/admin/halls', {
    ...admin,
    // A 100,000-seat layout written out seat by seat is larger than 64 KiB.
    bodyLimit: 4 * 1024 * 1024,
    schema: {
      tags: ['admin'], summary: 'Create a hall and its seats', security, body: HallInput,
      description: '`layout.rows`: each row has a label, `seats` (a count, numbered 1..n, or an explicit list of numbers), a price `tier`, '
        + 'optionally a `section` (seat ids become `101-F7`) and `accessible` seat numbers. Up to 100,000 seats; the body may be up to 4 MiB.',
      response: { 201: { ...Hall, description: 'The hall and its seat count', examples: [{ id: 'hal_01J9', venue_id: 'ven_01J9', name: 'Grande salle', seat_count: 200 }] }, ...adminRefusals },
    },
  }, async (req, reply) => reply.code(201).send(await catalog.createHall(ctx, req.body)));

  app.post<{ Body: EventInput }>('/v1/admin/events', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'Create an event (a film, a concert…)', security, body: EventInput,
      description: 'What is shown: its shows say where and when.',
      response: { 201: { ...Event, description: 'The event', examples: [{ id: 'evt_01J9', title: 'Metropolis', kind: 'film', duration_minutes: 153 }] }, ...adminRefusals },
    },
  }, async (req, reply) => reply.code(201).send(await catalog.createEvent(ctx, req.body)));

  app.post<{ Body: ShowInput }>('/v1/admin/shows', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'Create a show', security, body: ShowInput,
      description: 'An event in a hall at a time, with its prices (every tier the hall uses needs one) and sale rules.',
      response: { 201: { ...Show, description: 'The show', examples: [showExample] }, ...adminRefusals },
    },
  }, async (req, reply) => reply.code(201).send(await catalog.createShow(ctx, req.body)));

  app.patch<{ Params: IdParams; Body: ShowPatch }>('/v1/admin/shows/:id', {
    ...admin,
    schema: {
      tags: ['admin'], summary: "Change a show's settings", security, params: IdParams, body: ShowPatch,
      description: 'Any of the show settings; a show cannot move to another hall.',
      response: { 200: { ...Show, description: 'The show as it is now', examples: [showExample] }, ...adminRefusals, 404: noShow },
    },
  }, async (req) => catalog.updateShow(ctx, req.params.id, req.body));

  app.get<{ Querystring: PageQuery }>('/v1/admin/venues', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The venues, oldest first, a page at a time', security, querystring: PageQuery,
      description: 'Pass `next_cursor` as `cursor` for the next page.',
      response: { 200: Type.Object({ venues: Type.Array(Venue), next_cursor: NextCursor }, { description: 'A page of venues, as created', examples: [{ venues: [venueExample], next_cursor: null }] }), ...adminRefusals },
    },
  }, async (req) => catalog.listVenues(ctx, pageOf(req.query)));

  app.get<{ Querystring: HallListQuery }>('/v1/admin/halls', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The halls (of one venue, or all), oldest first, a page at a time', security, querystring: HallListQuery,
      description: 'Pass `next_cursor` as `cursor` for the next page.',
      response: { 200: Type.Object({ halls: Type.Array(Hall), next_cursor: NextCursor }, { description: 'A page of halls, as created' }), ...adminRefusals },
    },
  }, async (req) => catalog.listHalls(ctx, { venue_id: req.query.venue_id }, pageOf(req.query)));

  app.get<{ Params: IdParams }>('/v1/admin/halls/:id', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'A hall and the price tiers its seats use', security, params: IdParams,
      description: 'A show of this hall needs a price for each tier listed here.',
      response: {
        200: { ...HallDetail, description: 'The hall, with its tiers and their seat counts', examples: [{ id: 'hal_01J9', venue_id: 'ven_01J9', name: 'Grande salle', seat_count: 200, tiers: [{ tier: 'premium', seats: 40 }, { tier: 'standard', seats: 160 }] }] },
        ...adminRefusals,
        404: problemResponse('NOT_FOUND: no such hall'),
      },
    },
  }, async (req) => catalog.getHall(ctx, req.params.id));

  app.get<{ Querystring: PageQuery }>('/v1/admin/events', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The events, oldest first, a page at a time', security, querystring: PageQuery,
      description: 'Pass `next_cursor` as `cursor` for the next page.',
      response: { 200: Type.Object({ events: Type.Array(Event), next_cursor: NextCursor }, { description: 'A page of events, as created' }), ...adminRefusals },
    },
  }, async (req) => catalog.listEvents(ctx, pageOf(req.query)));

  app.get<{ Querystring: ShowListQuery }>('/v1/admin/shows', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The shows, past ones included, oldest first, a page at a time', security, querystring: ShowListQuery,
      description: 'Filter by venue, hall or event; pass `next_cursor` as `cursor` for the next page.',
      response: { 200: Type.Object({ shows: Type.Array(Show), next_cursor: NextCursor }, { description: 'A page of show objects, as created', examples: [{ shows: [showExample], next_cursor: null }] }), ...adminRefusals },
    },
  }, async (req) => {
    const { venue_id, hall_id, event_id } = req.query;
    return catalog.listCreatedShows(ctx, { venue_id, hall_id, event_id }, pageOf(req.query));
  });

  app.get<{ Querystring: EventQuery }>('/v1/events', {
    schema: {
      tags: ['catalog'], summary: 'Events with a show still to come (sale open or not yet), soonest first', querystring: EventQuery,
      description: '`next_show_at` is the earliest show of the event that has not started and matches the filters.',
      response: {
        200: Type.Object({ events: Type.Array(UpcomingEvent) }, {
          description: 'Events with a show that has not started and matches the filters',
          examples: [{ events: [{ id: 'evt_01J9', title: 'Metropolis', kind: 'film', next_show_at: '2026-12-01T20:00:00.000Z' }] }],
        }),
        400: invalid,
      },
    },
  }, async (req) => {
    const { city, q, date } = req.query;
    return catalog.listUpcomingEvents(ctx, { city, q, date });
  });

  app.get<{ Querystring: ShowQuery }>('/v1/shows', {
    schema: {
      tags: ['catalog'], summary: 'Search shows by city, event (alias movie), title words and date in the venue timezone',
      description: 'Without a date, the shows still to come; with one, every show of that day.',
      querystring: ShowQuery,
      response: { 200: Type.Object({ shows: Type.Array(Show) }, { description: 'The matching shows, soonest first', examples: [{ shows: [showExample] }] }), 400: invalid },
    },
  }, async (req) => {
    const { city, event, movie, date, q } = req.query;
    return catalog.listShows(ctx, { city, event: event ?? movie, date, q });
  });

  app.get<{ Params: IdParams }>('/v1/shows/:id', {
    schema: {
      tags: ['catalog'], summary: 'A show', params: IdParams,
      description: 'The show object: event, venue, hall, times, prices and sale rules.',
      response: { 200: { ...Show, description: 'The show', examples: [showExample] }, 404: noShow },
    },
  }, async (req) => catalog.getShow(ctx, req.params.id));
}
