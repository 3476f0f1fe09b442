// A TCP proxy in front of a server (PostgreSQL here) that a test switches between
// three network failures' worth of behaviour:
//   pass      forwards both ways;
//   blackhole accepts new connections but never forwards nor answers, and stops
//             forwarding on the open ones without closing them (a firewall dropping
//             packets: bytes sent meanwhile are held, as TCP would retransmit them,
//             and delivered if the connection lives until `pass`);
//   refuse    closes the listening socket (new connections: ECONNREFUSED) and
//             resets the open ones (a server that went away).
// Back to `pass` or `blackhole` from `refuse`, it listens again on the same port.
import { createServer, connect, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'blackhole' | 'refuse';

export interface BlackholeProxy {
  readonly port: number;
  /** Switches the mode; resolves once the listening socket is in its new state. */
  mode(m: ProxyMode): Promise<void>;
  /** Connections accepted so far (each a client socket and, once forwarded, its upstream). */
  readonly accepted: number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
}

export async function start(targetPort: number, targetHost = '127.0.0.1'): Promise<BlackholeProxy> {
  let current: ProxyMode = 'pass';
  let accepted = 0;
  const pairs = new Set<Pair>();

  const drop = (p: Pair) => {
    pairs.delete(p);
    p.client.destroy();
    p.upstream?.destroy();
  };
  const forward = (p: Pair) => {
    if (!p.upstream) {
      const up = connect(targetPort, targetHost);
      p.upstream = up;
      up.on('error', () => drop(p));
      up.on('close', () => drop(p));
      up.on('data', (d) => p.client.write(d));
      p.client.on('data', (d) => up.write(d));
    }
    p.client.resume();
    p.upstream.resume();
  };
  const hold = (p: Pair) => {
    p.client.pause();
    p.upstream?.pause();
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    accepted++;
    const p: Pair = { client, upstream: null };
    pairs.add(p);
    client.on('error', () => drop(p));
    client.on('close', () => drop(p));
    if (current === 'pass') forward(p);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  await listen(0);
  const port = (server.address() as { port: number }).port;

  return {
    port,
    get accepted() { return accepted; },
    async mode(m: ProxyMode) {
      if (m === current) return;
      const was = current;
      current = m;
      if (m === 'refuse') {
        for (const p of [...pairs]) {
          p.client.resetAndDestroy();
          p.upstream?.destroy();
          pairs.delete(p);
        }
        await new Promise<void>((resolve) => server.close(() => resolve()));
        return;
      }
      if (was === 'refuse') await listen(port);
      for (const p of pairs) (m === 'pass' ? forward : hold)(p);
    },
    async close() {
      for (const p of [...pairs]) drop(p);
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
