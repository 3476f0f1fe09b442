// The bare baseline of bench:stream, as a child process: a node:http Server-Sent
// Events broadcaster and nothing else. GET /stream answers with the service's SSE
// headers, `retry:` and the snapshot it was given; POST /feed is one long request
// whose body is a stream of events (as the service sent them): each complete event
// goes to every open stream as it arrives, as it is. POST /snapshot sets the
// snapshot event new streams start with.
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
  if (req.method === 'POST' && req.url === '/snapshot') {
    void readBody(req).then((body) => {
      snapshot = body;
      res.writeHead(204).end();
    });
    return;
  }
  if (req.method === 'POST' && req.url === '/feed') {
    // One long request whose body is the event stream itself: every complete event
    // (up to its blank line) goes to every viewer as soon as it arrives.
    let pending: Buffer = Buffer.alloc(0);
    req.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const end = pending.lastIndexOf('\n\n');
      if (end < 0) return;
      const events = pending.subarray(0, end + 2);
      pending = pending.subarray(end + 2);
      for (const v of viewers) v.write(events);
    });
    req.on('end', () => res.writeHead(204).end());
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
