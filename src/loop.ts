// A background task run every interval, one pass at a time: a pass that fails
// is logged and the next one retries. Every worker of an instance is one Loop, and
// so is each instance's reader of the seat change feed (src/live/seatFeed.ts).
// The interval is the pause between passes, or, `fixedRate`, from one pass's
// start to the next (a pass that takes longer is followed at once). With
// `idleMaxMs`, a pass that found nothing to do (its task resolved to 0) doubles the
// pause before the next, up to idleMaxMs, and a pass that did something brings it
// back to the interval: an idle task on an idle database costs a statement every
// idleMaxMs instead of every interval (on a shard across a network, each of those
// round trips holds one of its few connections).
export type Log = { warn: (o: object, m: string) => void };

const WARN_EVERY_MS = 10_000;

export class Loop {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopped = true;
  /** Passes failed in a row, and when that was last logged. */
  private failures = 0;
  private warnedAtMs = 0;
  /** The pause before the next pass: the interval, or longer while passes find nothing to do. */
  private pauseMs: number;
  /** The longest pause (never below the interval; the interval itself without idleMaxMs). */
  private readonly idleMaxMs: number;

  constructor(
    private readonly name: string,
    private readonly task: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly log: Log,
    private readonly o: { fixedRate?: boolean; idleMaxMs?: number } = {},
  ) {
    this.pauseMs = intervalMs;
    this.idleMaxMs = Math.max(intervalMs, o.idleMaxMs ?? intervalMs);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops scheduling and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass;
  }

  /** One pass now; overlapping calls share the pass in progress. */
  runOnce(): Promise<void> {
    this.pass ??= this.task().then(
      (result) => {
        this.succeeded();
        this.pauseMs = result === 0 ? Math.min(this.idleMaxMs, this.pauseMs * 2) : this.intervalMs;
      },
      (err: unknown) => this.failed(err),
    ).finally(() => { this.pass = null; });
    return this.pass;
  }

  /**
   * A pass failing again and again (the database away: every pass, four times a
   * second, in every loop) is logged once, then once per WARN_EVERY_MS with how many
   * failed meanwhile, and once more when a pass succeeds again.
   */
  private failed(err: unknown): void {
    this.failures++;
    const now = Date.now();
    if (now - this.warnedAtMs < WARN_EVERY_MS) return;
    this.log.warn({ err, task: this.name, failed_passes: this.failures }, 'worker pass failed; the next pass retries');
    this.warnedAtMs = now;
  }

  private succeeded(): void {
    if (this.failures === 0) return;
    this.log.warn({ task: this.name, failed_passes: this.failures }, 'worker passes succeed again');
    this.failures = 0;
    this.warnedAtMs = 0;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      void this.runOnce().then(() => this.schedule(this.o.fixedRate ? Math.max(0, this.pauseMs - (Date.now() - started)) : this.pauseMs));
    }, delay);
    this.timer.unref();
  }
}
