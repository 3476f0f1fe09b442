// Every test file must leave its worker as it found it (vitest.config.ts: the
// worker, and its modules, go on to the next file). Registered as a setup file, this
// counts what keeps the process busy before the file and fails the file when, after
// its last hook, more is left: timers, sockets, servers, child processes (Node's
// active resources), or listeners on `process` (signal handlers, 'exit'…). A file
// gets LEAK_GRACE_MS for sockets it closed to finish closing. What vitest itself
// holds is in the count before the file, so only the file's own are reported.
// Unref'd timers and handles are not counted: Node does not list them.
import { afterAll } from 'vitest';

const LEAK_GRACE_MS = 2000;

type Census = Map<string, number>;

/** How many of each active resource (by Node's name: Timeout, TCPSocketWrap…) and of each process listener. */
export function census(): Census {
  const c: Census = new Map();
  for (const r of process.getActiveResourcesInfo()) c.set(r, (c.get(r) ?? 0) + 1);
  for (const e of process.eventNames()) c.set(`process '${String(e)}' listener`, process.listenerCount(e));
  return c;
}

/** What `after` has more of than `before`, as "2 Timeout" lines. */
export function leftBehind(before: Census, after: Census): string[] {
  const out: string[] = [];
  for (const [name, n] of after) {
    const extra = n - (before.get(name) ?? 0);
    if (extra > 0) out.push(`${extra} ${name}`);
  }
  return out;
}

/** The source of the listeners added after the first `before` of each event, to find who added them. */
function newListeners(before: Census): string[] {
  return process.eventNames().flatMap((e) => {
    const had = before.get(`process '${String(e)}' listener`) ?? 0;
    return (process as NodeJS.EventEmitter).listeners(e).slice(had).map((fn) => `  on '${String(e)}': ${String(fn).replace(/\s+/g, ' ').slice(0, 160)}`);
  });
}

// Taken when the setup file runs: before the test file is imported, so what its
// top level opens counts too. Vitest sends its task updates throttled, with a timer
// that may be pending for up to 100 ms at any moment, here too: the count of timers
// the previous file of this worker settled at has none of it.
const SETTLED = Symbol.for('boxoffice.leakCheck.settled');
const worker = globalThis as { [SETTLED]?: Census };
const before = census();
const settledTimeouts = worker[SETTLED]?.get('Timeout') ?? 0;
before.set('Timeout', Math.min(before.get('Timeout') ?? 0, settledTimeouts));

afterAll(async () => {
  const until = Date.now() + LEAK_GRACE_MS;
  let now = census();
  let left = leftBehind(before, now);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = census();
    left = leftBehind(before, now);
  }
  // What is left stays for the next file (which is not to blame for it).
  worker[SETTLED] = now;
  if (left.length > 0) {
    throw new Error(`this test file left behind: ${left.join(', ')} (close what it opened in an afterAll)\n${newListeners(before).join('\n')}`);
  }
});
