// The bare baseline of bench:stream, as a child process: a node:http Server-Sent
// Events broadcaster and nothing else. GET /stream answers with the service's SSE
// headers, `retry:` and the snapshot it was given; POST /publish sends the posted
// bytes (one event, as the service sent it) to every open stream, as they are.
// POST /snapshot sets the snapshot event new streams start with.
import http from 'node:http';

const viewers = new Set<http.ServerResponse>();
let snapshot: Buffer = Buffer.alloc(0);

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    res.write('retry: 2000\n\n');
    res.write(snapshot);
    viewers.add(res);
    res.once('close', () => viewers.delete(res));
    return;
  }
  if (req.method === 'POST' && (req.url === '/publish' || req.url === '/snapshot')) {
    void readBody(req).then((body) => {
      if (req.url === '/snapshot') snapshot = body;
      else for (const v of viewers) v.write(body);
      res.writeHead(204).end();
    });
    return;
  }
  if (req.method === 'GET' && req.url === '/healthz') return void res.end('ok');
  res.writeHead(404).end();
});
// The service keeps SSE connections open without a request timeout: so does this.
server.requestTimeout = 0;
server.headersTimeout = 60_000;
server.keepAliveTimeout = 60_000;

const stop = () => {
  for (const v of viewers) v.destroy();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(0, '127.0.0.1', 4096, () => {
  const a = server.address();
  process.stdout.write(`bare stream listening on ${typeof a === 'object' && a ? a.port : 0}\n`);
});
