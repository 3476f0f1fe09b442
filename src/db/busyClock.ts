// How long a pool's connections have been busy, in total: the time integral of
// "connections in use", counting those still in use up to now. Divided by the pool
// size and a window's length it gives the pool's utilization over that window (the
// admission controller's measure of how much of the seat database's capacity is used).
export class BusyClock {
  private doneMs = 0;
  private running = 0;
  /** The sum of the start times of the intervals still running. */
  private startedSumMs = 0;

  /** A connection was taken; returns its start, to be given back to stop(). */
  start(): number {
    const now = performance.now();
    this.running++;
    this.startedSumMs += now;
    return now;
  }

  stop(startedMs: number): void {
    this.running--;
    this.startedSumMs -= startedMs;
    this.doneMs += performance.now() - startedMs;
  }

  /** Busy connection-milliseconds since the clock was made, including the running intervals so far. */
  busyMs(): number {
    return this.doneMs + this.running * performance.now() - this.startedSumMs;
  }
}
