import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as catalog from '../../app/catalog.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import {
  Event, EventInput, Hall, HallInput, IdParams, Problem, Show, ShowInput, ShowPatch, ShowQuery, Venue, VenueInput,
} from '../schemas.js';

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

  app.get<{ Querystring: ShowQuery }>('/v1/shows', {
    schema: {
      tags: ['catalog'], summary: 'Search shows by city, event (alias movie) and date in the venue timezone',
      querystring: ShowQuery, response: { 200: Type.Object({ shows: Type.Array(Show) }) },
    },
  }, async (req) => {
    const { city, event, movie, date } = req.query;
    return catalog.listShows(ctx, { city, event: event ?? movie, date });
  });

  app.get<{ Params: IdParams }>('/v1/shows/:id', {
    schema: { tags: ['catalog'], summary: 'A show', params: IdParams, response: { 200: Show, 404: Problem } },
  }, async (req) => catalog.getShow(ctx, req.params.id));
}
