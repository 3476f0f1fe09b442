import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as accounts from '../../app/accounts.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import { clientOf } from '../client.js';
import { Credentials, IdParams, Problem, Registration, RoleChange } from '../schemas.js';

export default async function accountRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.post<{ Body: Registration }>('/v1/users', {
    schema: {
      tags: ['accounts'], summary: 'Register a buyer account', body: Registration,
      response: { 201: Type.Object({ user_id: Type.String(), token: Type.String() }), 409: Problem, 429: Problem },
    },
  }, async (req, reply) => reply.code(201).send(await accounts.register(ctx, req.body, clientOf(ctx, req))));

  app.post<{ Body: Credentials }>('/v1/sessions', {
    schema: {
      tags: ['accounts'], summary: 'Sign in', body: Credentials,
      response: { 200: Type.Object({ user_id: Type.String(), token: Type.String(), role: Type.String() }), 401: Problem, 429: Problem },
    },
  }, async (req) => accounts.signIn(ctx, req.body, clientOf(ctx, req)));

  app.post<{ Params: IdParams; Body: RoleChange }>('/v1/admin/users/:id/role', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: "Set a user's role", params: IdParams, body: RoleChange,
      security: [{ bearer: [] }],
      response: { 200: Type.Object({ user_id: Type.String(), role: Type.String() }), 404: Problem },
    },
  }, async (req) => accounts.changeRole(ctx, req.params.id, req.body.role));
}
