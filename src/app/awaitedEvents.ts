// Provider events that arrived while their booking request was still recording the
// same answer (./webhooks.ts): each looks again after a pause, off the provider's
// delivery — the provider is answered at once, since the event is recorded, and an
// instance that stops meanwhile leaves it to the leftover-events worker.
export class AwaitedEvents {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  /** `pauseMs`: how long each waits; `max`: how many may wait at once. */
  constructor(readonly pauseMs: number, readonly max: number) {}

  /** Runs `task` (which handles its own errors) after the pause; false, and nothing scheduled, when closed or full. */
  later(task: () => Promise<void>): boolean {
    if (this.closed || this.timers.size >= this.max) return false;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = task().finally(() => this.running.delete(run));
      this.running.add(run);
    }, this.pauseMs);
    this.timers.add(timer);
    return true;
  }

  /** Waiting or running now. */
  get size(): number {
    return this.timers.size + this.running.size;
  }

  /** Drops what has not started (the leftover-events worker applies those) and waits for what has. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }
}
