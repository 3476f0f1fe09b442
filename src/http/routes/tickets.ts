import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as tickets from '../../app/tickets.js';
import type { Context } from '../../app/context.js';
import { requireRole, requireUser, authenticate } from '../auth.js';
import { CheckIn, CheckInInput, IdParams, Problem, Ticket } from '../schemas.js';

export default async function ticketRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const security = [{ bearer: [] }];

  app.get<{ Params: IdParams }>('/v1/bookings/:id/tickets', {
    onRequest: requireUser(ctx),
    schema: { tags: ['tickets'], summary: "A booking's tickets (issued within seconds of confirmation)", security, params: IdParams, response: { 200: Type.Object({ tickets: Type.Array(Ticket) }), 404: Problem } },
  }, async (req) => tickets.listTickets(ctx, req.principal!, req.params.id));

  for (const format of ['svg', 'png'] as const) {
    app.get<{ Params: IdParams; Querystring: { key?: string } }>(`/v1/tickets/:id/qr.${format}`, {
      schema: {
        tags: ['tickets'], summary: `The ticket's QR code as ${format.toUpperCase()} (capability URL, or the owner's token)`,
        params: IdParams, querystring: Type.Object({ key: Type.Optional(Type.String({ maxLength: 100 })) }),
        response: { 404: Problem, 410: Problem },
      },
    }, async (req, reply) => {
      const caller = await authenticate(ctx, req);
      const image = await tickets.ticketQr(ctx, req.params.id, { key: req.query.key, caller }, format);
      return reply.type(format === 'svg' ? 'image/svg+xml' : 'image/png').header('cache-control', 'private, max-age=3600').send(image);
    });
  }

  app.get('/v1/tickets/jwks.json', {
    schema: { tags: ['tickets'], summary: 'Public keys that verify ticket codes (JWS, EdDSA)' },
  }, async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(ctx.tickets.jwks()));

  app.post<{ Body: CheckInInput }>('/v1/checkin', {
    onRequest: requireRole(ctx, 'staff', 'admin'),
    schema: { tags: ['tickets'], summary: 'Check a ticket in at the gate, once', security, body: CheckInInput, response: { 200: CheckIn, 400: Problem, 409: Problem, 410: Problem } },
  }, async (req) => tickets.checkIn(ctx, req.body.code));
}
