// Connections are a resource any client can open without sending a byte: each one
// holds a descriptor until Node's header timeout closes it, and a process past its
// open file limit fails every accept() and open() with EMFILE (the API, /healthz
// and the database pool go down together). So connections are capped in total,
// below the open file limit with room kept for the pool, Redis and files, and per
// client address, so that one client cannot take the total for itself.
import type { Server, Socket } from 'node:net';
import type { OpenFileLimit } from '../live/streamCapacity.js';
import { ASSUMED_OPEN_FILES } from '../live/streamCapacity.js';

/**
 * Descriptors never given to client connections: the listen sockets, Redis, stdio,
 * log and static files, libuv's own (epoll, eventfd, signal pipe), besides the
 * database pool and its connection aside.
 */
export const CONNECTION_RESERVE = 128;

/** Client connections one process may hold: the soft limit less the reserve and the pool; Infinity when unlimited. */
export function connectionCapacity(o: { limit: OpenFileLimit | null; poolSize: number }): number {
  const openFiles = o.limit?.soft ?? ASSUMED_OPEN_FILES;
  if (openFiles === Infinity) return Infinity;
  return Math.max(1, openFiles - CONNECTION_RESERVE - o.poolSize - 1);
}

/** Written to a connection refused for its address, before it is closed: the contract's problem+json 503. */
function refusal(perAddress: number): string {
  const body = JSON.stringify({
    type: 'https://boxoffice.dev/problems/overloaded', title: 'Overloaded', status: 503, code: 'OVERLOADED', retry_after: 5,
    detail: `this address has its maximum of ${perAddress} open connections; close one, or try again shortly`,
  });
  return 'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json; charset=utf-8\r\nretry-after: 5\r\n'
    + `x-content-type-options: nosniff\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

export interface ConnectionCapsOptions {
  /** Open connections in total; beyond, Node closes new ones as soon as they are accepted. */
  total: number;
  /** Open connections per client address; null: not counted (behind a proxy every client has the proxy's address). */
  perAddress: number | null;
  /** Addresses never counted per address (RATE_LIMIT_EXEMPT). */
  exempt(address: string): boolean;
  /** Told of each connection refused for its address. */
  refused(): void;
}

/** Puts the caps on a server; returns the open connections per counted address (for tests and metrics). */
export function capConnections(server: Server, o: ConnectionCapsOptions): ReadonlyMap<string, number> {
  if (Number.isFinite(o.total)) server.maxConnections = o.total;
  const open = new Map<string, number>();
  const perAddress = o.perAddress;
  if (perAddress === null) return open;
  const answer = refusal(perAddress);
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || o.exempt(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      o.refused();
      // Answered without reading: the request that may follow is not served on it.
      socket.end(answer);
      socket.setTimeout(1000, () => socket.destroy());
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return open;
}
