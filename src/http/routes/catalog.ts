import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as catalog from '../../app/catalog.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import {
  Event, EventInput, EventQuery, Hall, HallInput, HallListQuery, IdParams, NextCursor, PageQuery, Problem, problemAnswer, Show,
  ShowInput, ShowListQuery, ShowPatch, ShowQuery, UpcomingEvent, Venue, VenueInput,
} from '../schemas.js';

const invalid = problemAnswer('VALIDATION_FAILED: a parameter or the body is not valid (unknown query parameters included)');
const unauthenticated = problemAnswer('UNAUTHENTICATED: no valid bearer token');
const forbidden = problemAnswer('FORBIDDEN: the caller is not an admin');
const adminRefusals = { 400: invalid, 401: unauthenticated, 403: forbidden };

const pageOf = (q: { limit?: string; cursor?: string }) => ({ limit: q.limit === undefined ? undefined : Number(q.limit), cursor: q.cursor });

export default async function catalogRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const admin = { onRequest: requireRole(ctx, 'admin') };
  const security = [{ bearer: [] }];

  app.post<{ Body: VenueInput }>('/v1/admin/venues', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Create a venue', security, body: VenueInput, response: { 201: Venue, 400: Problem } },
  }, async (req, reply) => reply.code(201).send(await catalog.createVenue(ctx, req.body)));

  app.post<{ Body: HallInput }>('/v1/admin/halls', {
    ...admin,
    // A 100,000-seat layout written out seat by seat is larger than 64 KiB.
    bodyLimit: 4 * 1024 * 1024,
    schema: { tags: ['admin'], summary: 'Create a hall and its seats', security, body: HallInput, response: { 201: Hall, 400: Problem } },
  }, async (req, reply) => reply.code(201).send(await catalog.createHall(ctx, req.body)));

  app.post<{ Body: EventInput }>('/v1/admin/events', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Create an event (a film, a concert…)', security, body: EventInput, response: { 201: Event } },
  }, async (req, reply) => reply.code(201).send(await catalog.createEvent(ctx, req.body)));

  app.post<{ Body: ShowInput }>('/v1/admin/shows', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Create a show', security, body: ShowInput, response: { 201: Show, 400: Problem } },
  }, async (req, reply) => reply.code(201).send(await catalog.createShow(ctx, req.body)));

  app.patch<{ Params: IdParams; Body: ShowPatch }>('/v1/admin/shows/:id', {
    ...admin,
    schema: { tags: ['admin'], summary: "Change a show's settings", security, params: IdParams, body: ShowPatch, response: { 200: Show, 404: Problem } },
  }, async (req) => catalog.updateShow(ctx, req.params.id, req.body));

  app.get<{ Querystring: PageQuery }>('/v1/admin/venues', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The venues, oldest first, a page at a time', security, querystring: PageQuery,
      response: { 200: Type.Object({ venues: Type.Array(Venue), next_cursor: NextCursor }, { description: 'A page of venues, as created' }), ...adminRefusals },
    },
  }, async (req) => catalog.listVenues(ctx, pageOf(req.query)));

  app.get<{ Querystring: HallListQuery }>('/v1/admin/halls', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The halls (of one venue, or all), oldest first, a page at a time', security, querystring: HallListQuery,
      response: { 200: Type.Object({ halls: Type.Array(Hall), next_cursor: NextCursor }, { description: 'A page of halls, as created' }), ...adminRefusals },
    },
  }, async (req) => catalog.listHalls(ctx, { venue_id: req.query.venue_id }, pageOf(req.query)));

  app.get<{ Querystring: PageQuery }>('/v1/admin/events', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The events, oldest first, a page at a time', security, querystring: PageQuery,
      response: { 200: Type.Object({ events: Type.Array(Event), next_cursor: NextCursor }, { description: 'A page of events, as created' }), ...adminRefusals },
    },
  }, async (req) => catalog.listEvents(ctx, pageOf(req.query)));

  app.get<{ Querystring: ShowListQuery }>('/v1/admin/shows', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'The shows, past ones included, oldest first, a page at a time', security, querystring: ShowListQuery,
      response: { 200: Type.Object({ shows: Type.Array(Show), next_cursor: NextCursor }, { description: 'A page of show objects, as created' }), ...adminRefusals },
    },
  }, async (req) => {
    const { venue_id, hall_id, event_id } = req.query;
    return catalog.listCreatedShows(ctx, { venue_id, hall_id, event_id }, pageOf(req.query));
  });

  app.get<{ Querystring: EventQuery }>('/v1/events', {
    schema: {
      tags: ['catalog'], summary: 'Events with a show still to come (sale open or not yet), soonest first', querystring: EventQuery,
      response: {
        200: Type.Object({ events: Type.Array(UpcomingEvent) }, { description: 'Events with a show that has not started and matches the filters' }),
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
      response: { 200: Type.Object({ shows: Type.Array(Show) }, { description: 'The matching shows, soonest first' }), 400: invalid },
    },
  }, async (req) => {
    const { city, event, movie, date, q } = req.query;
    return catalog.listShows(ctx, { city, event: event ?? movie, date, q });
  });

  app.get<{ Params: IdParams }>('/v1/shows/:id', {
    schema: { tags: ['catalog'], summary: 'A show', params: IdParams, response: { 200: Show, 404: Problem } },
  }, async (req) => catalog.getShow(ctx, req.params.id));
}
