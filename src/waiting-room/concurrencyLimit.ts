// An adaptive concurrency limit for one path of one instance (after Netflix
// concurrency-limits' Gradient2): the limit follows the ratio of the long-run
// latency to the recent one. While recent requests are as fast as usual the limit
// grows by a small queue allowance; when they slow down it shrinks in proportion
// (at most halving per sample before smoothing); an error counts as a slow sample.
// Beyond the limit a request is refused at once: no queue, no slow timeout.
//
// With `queue` (a path whose requests wait for a pool of `slots` connections) the
// limit is what the pool serves within `waitMs` instead: slots × (1 + waitMs / turn),
// where a turn is the time a request keeps one connection's place in line — its
// latency over max(1, the queue it met / slots), never more than the pool's own turn
// (`pool`, below): the larger of its long-run average and its recent one over 1.5 (a
// short stall does not cut). By Little's law a request admitted at
// that limit waits about `waitMs` for the pool beyond its own turn: a healthy
// database (turns of a few ms) serves hundreds in flight and the limit stays there,
// whatever queue of the pool's own making the latency shows; a database that slows
// (turns of tens of ms) brings it down to a few times the pool. Latency that grows
// only with the queue is no distress; only a slower turn is.

export interface LimitSettings {
  initial: number;
  min: number;
  max: number;
  /** The pool this path's requests queue for (its size) and how long one may wait in that queue (ms). */
  queue?: { slots: number; waitMs: number };
}

/** A moving average that forgets with a window of about `window` samples. */
class Average {
  value = 0;
  private count = 0;
  constructor(private readonly window: number) {}
  add(sample: number): number {
    this.count++;
    const w = this.count < this.window ? this.count : this.window;
    this.value += (sample - this.value) / w;
    return this.value;
  }
  scale(f: number): void {
    this.value *= f;
  }
  get samples(): number {
    return this.count;
  }
}

const TOLERANCE = 1.5;
const SMOOTHING = 0.2;
const SHORT_WINDOW = 10;
const LONG_WINDOW = 600;

export class ConcurrencyLimit {
  private estimate: number;
  private inFlight_ = 0;
  private readonly shortRtt = new Average(SHORT_WINDOW);
  private readonly longRtt = new Average(LONG_WINDOW);
  /** With `queue`: turns of the pool (see above), recent and long-run. */
  private readonly shortTurn: Average;
  private readonly longTurn = new Average(LONG_WINDOW);
  rejected = 0;
  /**
   * A latency the path is meant to run at (ms), or null: recent requests no slower
   * than this never shrink the limit. The holds' limit takes the admission
   * controller's set point: the room steers hold latency up to it on purpose (a
   * queue of its making), and a limit that shrank for that queue shed the buyers
   * the room had just admitted — two controllers pulling against each other.
   */
  latencyTarget: () => number | null = () => null;
  /**
   * With `queue`, the pool's own figures where it can tell them: `occupancy`, how many
   * requests of every kind hold or wait for one of its connections now; `turnMs`, how
   * long one use of a connection takes lately (null: unknown). Holds share the pool
   * with bookings and the workers: a hold that met twenty holds and forty others waited
   * behind sixty, and a turn reckoned from the holds alone looked three times slower
   * than the pool's. And a hold's latency counts time outside the pool — its turns on an
   * event loop short of CPU, while a crowd's joins and polls share it — that is no turn
   * of the database: a turn is never taken as longer than the pool's own. In both ways
   * the limit shed in an on-sale's first seconds while the database kept up
   * (bench:overload).
   */
  pool: (() => { occupancy: number; turnMs: number | null }) | null = null;

  constructor(private readonly settings: Readonly<LimitSettings>) {
    this.estimate = settings.initial;
    // A recent window of two turns of the pool: ten answers of 64 in flight are a
    // few ms, and a pause that short (a collection, another process on the core)
    // is no sign of a slower database.
    this.shortTurn = new Average(Math.max(SHORT_WINDOW, 2 * (settings.queue?.slots ?? 0)));
  }

  get limit(): number {
    const q = this.settings.queue;
    if (!q || this.longTurn.samples === 0) return Math.floor(this.estimate);
    const turn = Math.max(this.longTurn.value, this.shortTurn.value / TOLERANCE);
    const { min, max } = this.settings;
    return Math.floor(Math.min(max, Math.max(min, turn > 0 ? q.slots * (1 + q.waitMs / turn) : max)));
  }

  get inFlight(): number {
    return this.inFlight_;
  }

  /** The queue a request that has just taken its slot meets (itself included): those in flight on this path, or in its pool if more. */
  queueMet(): number {
    return this.settings.queue && this.pool ? Math.max(this.inFlight_, this.pool().occupancy + 1) : this.inFlight_;
  }

  /** Takes a slot, or false beyond the limit (the caller answers 503 at once). */
  tryAcquire(): boolean {
    if (this.inFlight_ >= this.limit) {
      this.rejected++;
      return false;
    }
    this.inFlight_++;
    return true;
  }

  /** Gives the slot back with nothing learnt: the request was decided without the resource this limit guards. */
  releaseUnsampled(): void {
    this.inFlight_--;
  }

  /**
   * Gives the slot back with what the request took; `failed`: it ended in a server-side
   * failure; `metInFlight`: how many were in flight once it had its slot (itself
   * included): the queue it met (by default, those in flight now).
   */
  release(rttMs: number, failed: boolean, metInFlight?: number): void {
    const inFlight = this.inFlight_;
    this.inFlight_--;
    const slots = this.settings.queue?.slots;
    if (slots) {
      const depth = Math.max(1, (metInFlight ?? inFlight) / slots);
      const poolTurn = this.pool?.().turnMs ?? null;
      const turn = poolTurn !== null ? Math.min(rttMs / depth, poolTurn) : rttMs / depth;
      this.shortTurn.add(failed ? Math.max(turn, 2 * TOLERANCE * (this.longTurn.value || turn)) : turn);
      this.longTurn.add(failed ? Math.max(turn, 2 * TOLERANCE * (this.longTurn.value || turn)) : turn);
      return;
    }
    this.sample(failed ? Math.max(rttMs, 2 * TOLERANCE * (this.longRtt.value || rttMs)) : rttMs, inFlight);
  }

  private sample(rttMs: number, inFlight: number): void {
    const short = this.shortRtt.add(rttMs);
    const long = this.longRtt.add(rttMs);
    // After a long slow period the long-run average is itself slow: let it come down faster.
    if (long / short > 2) this.longRtt.scale(0.95);
    // Not using the limit says nothing about whether a higher one would be safe.
    if (inFlight < this.estimate / 2) return;
    const allowed = Math.max(TOLERANCE * long, this.latencyTarget() ?? 0);
    const gradient = Math.max(0.5, Math.min(1, allowed / short));
    const queue = Math.sqrt(this.estimate);
    const next = this.estimate * gradient + queue;
    this.estimate = Math.min(this.settings.max, Math.max(this.settings.min, this.estimate * (1 - SMOOTHING) + next * SMOOTHING));
  }
}
