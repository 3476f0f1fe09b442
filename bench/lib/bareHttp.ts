// The raw baselines of bench:hotpath, on node:http alone (no Fastify), as a child process:
//   claim  — POST /v1/shows/:id/holds runs ONE statement through a pg Pool of the
//            service's size: a conditional UPDATE that holds each requested seat for 1 s
//            when it is available or its hold has expired. No auth, no validation, no
//            holds row, no per-user limit, no lock ordering: the cheapest claim there is.
//            201 when every seat was taken by it, else 409 SEAT_UNAVAILABLE (a partial
//            claim is not undone: its seats expire after 1 s like any hold). The buyer
//            is the x-bench-user header.
//   static — GET sends recorded bytes from memory with the recorded headers (every one the
//            service sent but those Node writes itself: replayedHeaders in ./api.ts),
//            picked by URL and Accept-Encoding.
// Env: BARE_DATABASE_URL, BARE_POOL_SIZE (claim); BARE_MANIFEST (static: a JSON list of
// {url, acceptEncoding, file, headers}, as bench:seatmap writes it).
import http from 'node:http';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The whole claim: one UPDATE (a seat taken in its snapshot is skipped without a lock). */
export const BARE_CLAIM_SQL = `
update show_seats s
   set status = 'held', hold_id = $2, holder_id = $3,
       hold_expires_at = now() + interval '1 second', version = nextval('seat_version_seq')
 where s.show_id = $1 and s.seat_id = any ($4::text[])
   and (s.status = 'available' or (s.status = 'held' and s.hold_expires_at <= now()))
returning s.seat_id, s.hold_expires_at`;

const mode = process.argv[2];
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
let close = async () => {};

if (mode === 'claim') {
  const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: Number(process.env.BARE_POOL_SIZE ?? 20), idleTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  close = () => pool.end();
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const bytes = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(bytes) });
    res.end(bytes);
  };
  handler = (req, res) => {
    const m = /^\/v1\/shows\/([^/]+)\/holds$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) return send(res, 404, { code: 'NOT_FOUND' });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const showId = m[1]!;
      const seats = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { seats: string[] }).seats;
      const holdId = `hold_${randomBytes(12).toString('hex')}`;
      pool.query<{ seat_id: string; hold_expires_at: Date }>(BARE_CLAIM_SQL, [showId, holdId, req.headers['x-bench-user'], seats]).then((r) => {
        if (r.rows.length === seats.length) {
          send(res, 201, { hold_id: holdId, show_id: showId, seats, status: 'active', expires_at: r.rows[0]!.hold_expires_at.toISOString() });
        } else send(res, 409, { code: 'SEAT_UNAVAILABLE' });
      }, (err: Error) => send(res, 500, { code: 'INTERNAL', detail: err.message }));
    });
  };
} else if (mode === 'static') {
  const variants = new Map<string, { body: Buffer; headers: Record<string, string> }>();
  const manifest = JSON.parse(readFileSync(process.env.BARE_MANIFEST!, 'utf8')) as { url: string; acceptEncoding: string; file: string; headers: Record<string, string> }[];
  for (const v of manifest) variants.set(`${v.url}\n${v.acceptEncoding}`, { body: readFileSync(v.file), headers: v.headers });
  handler = (req, res) => {
    const v = variants.get(`${req.url}\n${req.headers['accept-encoding'] ?? ''}`);
    if (!v) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { ...v.headers, 'content-length': v.body.length });
    res.end(v.body);
  };
} else {
  throw new Error(`usage: bareHttp.js claim|static (got ${mode})`);
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
const stop = () => {
  server.closeAllConnections();
  server.close(() => void close().then(() => process.exit(0)));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`bare http server listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
});
