// The raw baselines the house rule asks for, as a child process like the service:
//   claim  — POST /v1/shows/:id/holds runs exactly the service's claim SQL through a
//            pg Pool of the service's size; no auth, no validation, no schemas. The
//            buyer comes from the x-bench-user header the load generator sends.
//   static — GET /v1/shows/:id/seats (and …/sections) sends fixed bodies from memory
//            with the service's headers (all but those Node writes itself), picked
//            by URL and Accept-Encoding; honours If-None-Match.
//   refuse — POST /v1/shows/:id/holds and /v1/bookings answer 503 OVERLOADED with
//            Retry-After at once: what a refusal costs with no work before it.
// Env: BARE_DATABASE_URL, BARE_POOL_SIZE (claim); BARE_MANIFEST (static: a JSON list of
// {url, acceptEncoding, file, headers}).
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
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
  // Answers recorded from the service: by URL (query included) and the exact
  // Accept-Encoding the load sends, each with the bytes and headers to send back.
  const variants = new Map<string, { body: Buffer; headers: Record<string, string>; etag: string }>();
  const manifest = JSON.parse(readFileSync(process.env.BARE_MANIFEST!, 'utf8')) as { url: string; acceptEncoding: string; file: string; headers: Record<string, string> }[];
  for (const v of manifest) variants.set(`${v.url}\n${v.acceptEncoding}`, { body: readFileSync(v.file), headers: v.headers, etag: v.headers.etag ?? '' });
  const answer = (req: FastifyRequest, reply: FastifyReply) => {
    const v = variants.get(`${req.url}\n${req.headers['accept-encoding'] ?? ''}`);
    if (!v) return reply.code(404).send();
    reply.headers(v.headers);
    if (req.headers['if-none-match'] === v.etag) {
      // As the service: a 304 carries the tag, vary and cache-control, no body headers.
      reply.removeHeader('content-encoding');
      reply.removeHeader('content-type');
      return reply.code(304).send();
    }
    return reply.send(v.body);
  };
  app.get('/v1/shows/:id/seats', answer);
  app.get('/v1/shows/:id/sections', answer);
} else if (mode === 'refuse') {
  // The whole of a shed purchase: 503 OVERLOADED, Retry-After, the problem body.
  const body = JSON.stringify({
    type: 'https://boxoffice.dev/problems/overloaded', title: 'Overloaded', status: 503, code: 'OVERLOADED',
    detail: 'too many purchases in flight on this instance; try again in a moment', retry_after: 1,
  });
  const refuse = (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(503).header('retry-after', '1').header('content-type', 'application/problem+json').send(body);
  app.post('/v1/shows/:id/holds', refuse);
  app.post('/v1/bookings', refuse);
} else {
  throw new Error(`usage: bareServer.js claim|static|refuse (got ${mode})`);
}

const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`bare server listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
