// A TCP proxy that delays every chunk by a fixed delay in each direction: a seat
// database "slowed on purpose", as if it sat across a network (each shard of
// bench:shards a pool of P connections behind a fixed delay: a finite capacity).
// The benchmarks run it as a child process (bench/lib/child.ts startDelayProxy: not
// in the load generator's event loop, whose lag would add to the delay), with
// env PROXY_TARGET_HOST, PROXY_TARGET_PORT, PROXY_DELAY_MS; a test may run it in
// its own process with listenDelayProxy(). Order is kept: timers of one duration
// fire in the order they were set.
import net from 'node:net';
import { pathToFileURL } from 'node:url';

export interface DelayProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

export function listenDelayProxy(o: { targetHost?: string; targetPort: number; delayMs: number; port?: number }): Promise<DelayProxy> {
  const host = o.targetHost ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let accepted = 0;
  let closed = false;
  const later = (fn: () => void) => {
    if (closed) return;
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, o.delayMs);
    timers.add(t);
  };
  const relay = (from: net.Socket, to: net.Socket): void => {
    from.on('data', (chunk) => later(() => { if (!to.destroyed) to.write(chunk); }));
    from.on('end', () => later(() => to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => later(() => to.destroy()));
  };
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const server = net.createServer((client) => {
    accepted++;
    client.setNoDelay(true);
    const upstream = net.connect({ host, port: o.targetPort });
    upstream.setNoDelay(true);
    track(client);
    track(upstream);
    relay(client, upstream);
    relay(upstream, client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as net.AddressInfo).port,
        get accepted() { return accepted; },
        close: () => new Promise<void>((done) => {
          closed = true;
          for (const t of timers) clearTimeout(t);
          timers.clear();
          for (const s of sockets) s.destroy();
          server.close(() => done());
        }),
      });
    });
  });
}

// Run as a script (the benchmarks' child process): listen, say where, stop on a signal.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  listenDelayProxy({
    targetHost: process.env.PROXY_TARGET_HOST ?? '127.0.0.1',
    targetPort: Number(process.env.PROXY_TARGET_PORT ?? 5432),
    delayMs: Number(process.env.PROXY_DELAY_MS ?? 10),
  }).then((proxy) => {
    const stop = () => { void proxy.close().then(() => process.exit(0)); setTimeout(() => process.exit(0), 500).unref(); };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.stdout.write(`delay proxy listening on ${proxy.port}\n`);
  }, (err: unknown) => {
    process.stderr.write(`delay proxy: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
