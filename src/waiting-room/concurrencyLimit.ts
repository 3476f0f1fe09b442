// An adaptive concurrency limit for one path of one instance (after Netflix
// concurrency-limits' Gradient2): the limit follows the ratio of the long-run
// latency to the recent one. While recent requests are as fast as usual the limit
// grows by a small queue allowance; when they slow down it shrinks in proportion
// (at most halving per sample before smoothing); an error counts as a slow sample.
// Beyond the limit a request is refused at once: no queue, no slow timeout.

export interface LimitSettings {
  initial: number;
  min: number;
  max: number;
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
  rejected = 0;
  /**
   * A latency the path is meant to run at (ms), or null: recent requests no slower
   * than this never shrink the limit. The holds' limit takes the admission
   * controller's set point: the room steers hold latency up to it on purpose (a
   * queue of its making), and a limit that shrank for that queue shed the buyers
   * the room had just admitted — two controllers pulling against each other.
   */
  latencyTarget: () => number | null = () => null;

  constructor(private readonly settings: Readonly<LimitSettings>) {
    this.estimate = settings.initial;
  }

  get limit(): number {
    return Math.floor(this.estimate);
  }

  get inFlight(): number {
    return this.inFlight_;
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

  /** Gives the slot back with what the request took; `failed`: it ended in a server-side failure. */
  release(rttMs: number, failed: boolean): void {
    const inFlight = this.inFlight_;
    this.inFlight_--;
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
