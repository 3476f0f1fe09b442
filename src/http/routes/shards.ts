import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import { IdParams, problemResponse, roleRefusals } from '../schemas.js';
import { listShards, showPlacement } from '../../app/shardAdmin.js';
import { moveShowTo } from '../../app/showMoves.js';

export default async function shardRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get('/v1/admin/shards', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: 'The shards: whether each answers, its shows, and the demand expected by its shows not yet started', security: [{ bearer: [] }],
      description: 'Without SHARD_URLS, one shard named `main`: the one database.',
      response: {
        200: Type.Object({
          shards: Type.Array(Type.Object({
            name: Type.String(), up: Type.Boolean({ description: 'Answered a statement within 1 s just now' }),
            shows: Type.Integer({ description: 'Shows placed on it' }),
            expected_demand: Type.Integer({ description: 'Sum of `expected_demand` over its shows not yet started' }),
          })),
        }, { description: 'Every shard', examples: [{ shards: [{ name: 'a', up: true, shows: 12, expected_demand: 40000 }, { name: 'b', up: false, shows: 9, expected_demand: 52000 }] }] }),
        ...roleRefusals('an admin'),
      },
    },
  }, async () => listShards(ctx));

  app.get<{ Params: IdParams }>('/v1/admin/shows/:id/placement', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: "Where a show's inventory lives: its shard, and the placement's epoch", security: [{ bearer: [] }], params: IdParams,
      description: 'As the control database says now. `epoch` grows with every move of the show; without SHARD_URLS every show is on `main`.',
      response: {
        200: Type.Object({ show_id: Type.String(), shard: Type.String(), epoch: Type.Integer() },
          { description: "The show's placement", examples: [{ show_id: 'show_01J9', shard: 'a', epoch: 1 }] }),
        ...roleRefusals('an admin'),
        404: problemResponse('NOT_FOUND: no such show'),
      },
    },
  }, async (req) => showPlacement(ctx, req.params.id));

  app.post<{ Params: IdParams; Body: { shard: string } }>('/v1/admin/shows/:id/move', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: "Moves a show's inventory to another shard", security: [{ bearer: [] }], params: IdParams,
      description: "While the show's seats, holds (with their expiry), bookings, payments in flight and tickets are copied, checked and flipped, its purchase routes answer 503 OVERLOADED with Retry-After and its map keeps answering; every instance follows the new placement without a restart. Answers once the show serves from the new shard.",
      body: Type.Object({ shard: Type.String({ minLength: 1, maxLength: 64, description: 'The shard to move to' }) }, { additionalProperties: false }),
      response: {
        200: Type.Object({
          show_id: Type.String(), shard: Type.String(), epoch: Type.Integer(),
          paused_ms: Type.Integer({ description: "How long the show's purchase routes answered 503" }),
        }, { description: 'The show serves from its new shard', examples: [{ show_id: 'show_01J9', shard: 'b', epoch: 2, paused_ms: 412 }] }),
        ...roleRefusals('an admin'),
        400: problemResponse('VALIDATION_FAILED: no shard of that name'),
        404: problemResponse('NOT_FOUND: no such show'),
        409: problemResponse('MOVE_IN_PROGRESS: the show is being moved already'),
      },
    },
  }, async (req) => moveShowTo(ctx, req.params.id, req.body.shard));
}
