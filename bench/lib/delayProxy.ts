// A TCP proxy that delays every chunk by PROXY_DELAY_MS in each direction: a seat
// database "slowed on purpose", as if it sat across a network. Run as a child
// process (not in the load generator's event loop, whose lag would add to the
// delay). Order is kept: timers of one duration fire in the order they were set.
// Env: PROXY_TARGET_HOST, PROXY_TARGET_PORT, PROXY_DELAY_MS.
import net from 'node:net';

const host = process.env.PROXY_TARGET_HOST ?? '127.0.0.1';
const port = Number(process.env.PROXY_TARGET_PORT ?? 5432);
const delay = Number(process.env.PROXY_DELAY_MS ?? 10);

function relay(from: net.Socket, to: net.Socket): void {
  from.on('data', (chunk) => {
    setTimeout(() => { if (!to.destroyed) to.write(chunk); }, delay);
  });
  from.on('end', () => setTimeout(() => to.end(), delay));
  from.on('error', () => to.destroy());
  from.on('close', () => setTimeout(() => to.destroy(), delay));
}

const server = net.createServer((client) => {
  client.setNoDelay(true);
  const upstream = net.connect({ host, port });
  upstream.setNoDelay(true);
  relay(client, upstream);
  relay(upstream, client);
});
server.on('error', (err) => {
  process.stderr.write(`delay proxy: ${err.message}\n`);
  process.exit(1);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', () => { stop(); setTimeout(() => process.exit(0), 500).unref(); });
process.on('SIGINT', stop);
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`delay proxy listening on ${typeof a === 'object' && a ? a.port : 0}\n`);
});
