// The raw baselines the house rule asks for, as a child process like the service:
//   claim  — POST /v1/shows/:id/holds runs exactly the service's claim SQL through a
//            pg Pool of the service's size; no auth, no validation, no schemas. The
//            buyer comes from the x-bench-user header the load generator sends.
//   static — GET /v1/shows/:id/seats sends a fixed body from memory with the
//            service's headers (content-type, etag, cache-control) and honours
//            If-None-Match.
// Env: BARE_DATABASE_URL, BARE_POOL_SIZE (claim); BARE_BODY_FILE, BARE_CONTENT_TYPE, BARE_ETAG (static).
import Fastify from 'fastify';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const mode = process.argv[2];
const app = Fastify({ logger: false });

if (mode === 'claim') {
  pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));
  // Idle connections close after 5 s (the service keeps them 30 s): the PostgreSQL
  // server is shared, and the warm-up of each slice covers reconnecting.
  const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: Number(process.env.BARE_POOL_SIZE ?? 20), idleTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  app.addHook('onClose', () => pool.end());
  app.post<{ Params: { id: string }; Body: { seats: string[] } }>('/v1/shows/:id/holds', async (req, reply) => {
    const holdId = `hold_${randomBytes(12).toString('hex')}`;
    const r = await pool.query<{ outcome: string; taken: string[] | null; expires_at: Date | null; amount: number | null; currency: string | null }>(
      'select * from claim_seats($1, $2, $3, $4::text[])',
      [req.params.id, holdId, req.headers['x-bench-user'], req.body.seats],
    );
    const c = r.rows[0]!;
    if (c.outcome === 'held') {
      return reply.code(201).send({
        hold_id: holdId, show_id: req.params.id, seats: req.body.seats, status: 'active',
        expires_at: c.expires_at!.toISOString(), amount: c.amount, currency: c.currency,
      });
    }
    return reply.code(409).send({ code: c.outcome === 'seat_unavailable' ? 'SEAT_UNAVAILABLE' : c.outcome, taken: c.taken });
  });
} else if (mode === 'static') {
  const body = readFileSync(process.env.BARE_BODY_FILE!);
  const contentType = process.env.BARE_CONTENT_TYPE ?? 'application/json; charset=utf-8';
  const etag = process.env.BARE_ETAG ?? '"bare"';
  app.get('/v1/shows/:id/seats', (req, reply) => {
    reply.header('etag', etag).header('cache-control', 'public, max-age=1');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(contentType).send(body);
  });
} else {
  throw new Error(`usage: bareServer.js claim|static (got ${mode})`);
}

const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`bare server listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
