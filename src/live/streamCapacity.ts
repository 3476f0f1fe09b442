// How many seat map streams one process may hold. Each stream is a socket, and a
// process past its open file limit fails every accept() and open() with EMFILE:
// /healthz, the API and the database pool all go down together, not just the
// streams. So the total is derived from the limit, with room kept for the rest.
// Pure: the limit is read elsewhere (./openFileLimit.ts).

/** RLIMIT_NOFILE; Infinity for "unlimited". */
export interface OpenFileLimit {
  soft: number;
  hard: number;
}

/**
 * Assumed where the limit cannot be read (no /proc: macOS, Windows): 1024, the
 * soft limit Linux starts processes with. Conservative on purpose: Node raises the
 * soft limit to the hard one at start, so the real figure is rarely lower.
 */
export const ASSUMED_OPEN_FILES = 1024;

/**
 * The share of the limit kept for everything that is not a stream. The API's
 * clients (browsers' and proxies' keep-alive connections) grow with the same crowd
 * that opens streams, so a fixed reserve would be too small at 20,000 and too large
 * at 1,024; a quarter keeps 5,000 of 20,000 for them.
 */
export const RESERVE_SHARE = 0.25;

/**
 * Never less than this besides the database pool: the listen sockets (API,
 * /metrics, the bundled payment simulator), Redis (up to three connections),
 * stdio, log and static files, libuv's own descriptors (epoll, eventfd, signal
 * pipe), and a couple of hundred API connections.
 */
export const RESERVE_FLOOR = 256;

export interface StreamCapacity {
  /** Open streams this process takes; beyond, 503 OVERLOADED. */
  viewers: number;
  /** Descriptors kept for the rest. */
  reserve: number;
  /** The soft limit the figures come from. */
  openFiles: number;
  /** True when the limit could not be read and ASSUMED_OPEN_FILES stood in. */
  assumed: boolean;
}

/** The `Max open files` line of /proc/<pid>/limits, or null when it is missing. */
export function parseOpenFileLimit(procLimits: string): OpenFileLimit | null {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(procLimits);
  if (!m) return null;
  const value = (s: string) => (s === 'unlimited' ? Infinity : Number(s));
  return { soft: value(m[1]!), hard: value(m[2]!) };
}

/**
 * The total of open streams: the configured STREAM_MAX_VIEWERS, but never more
 * than the soft limit less the reserve (max(a quarter, RESERVE_FLOOR + the pool
 * size + 1 for the connection aside)).
 */
export function streamCapacity(o: { configured: number; limit: OpenFileLimit | null; poolSize: number }): StreamCapacity {
  const assumed = o.limit === null;
  const openFiles = o.limit?.soft ?? ASSUMED_OPEN_FILES;
  if (openFiles === Infinity) return { viewers: o.configured, reserve: 0, openFiles, assumed };
  const reserve = Math.max(Math.ceil(openFiles * RESERVE_SHARE), RESERVE_FLOOR + o.poolSize + 1);
  return { viewers: Math.max(0, Math.min(o.configured, openFiles - reserve)), reserve, openFiles, assumed };
}
