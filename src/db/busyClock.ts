// How long a pool's connections have been busy, in total: the time integral of
// "connections in use", counting those still in use up to now. Divided by the pool
// size and a window's length it gives the pool's utilization over that window (the
// admission controller's measure of how much of the seat database's capacity is used).
// It also keeps how long one use lately took: the pool's turn, by which the holds'
// concurrency limit tells a slower database from time spent outside the pool.

/** Uses the recent turn averages over (about). */
const RECENT_USES = 50;

export class BusyClock {
  private doneMs = 0;
  private running = 0;
  /** The sum of the start times of the intervals still running. */
  private startedSumMs = 0;
  private uses = 0;
  private recentUseMs = 0;

  /** A connection was taken; returns its start, to be given back to stop(). */
  start(): number {
    const now = performance.now();
    this.running++;
    this.startedSumMs += now;
    return now;
  }

  stop(startedMs: number): void {
    const took = performance.now() - startedMs;
    this.running--;
    this.startedSumMs -= startedMs;
    this.doneMs += took;
    this.uses++;
    this.recentUseMs += (took - this.recentUseMs) / Math.min(this.uses, RECENT_USES);
  }

  /**
   * How long one use of a connection takes lately (ms): the moving average of the
   * last uses, or the mean age of the uses still running if that is longer (a
   * database that stopped answering ends no use, and this must still grow); null
   * before any use has ended.
   */
  turnMs(): number | null {
    if (this.uses === 0) return null;
    const runningAge = this.running > 0 ? performance.now() - this.startedSumMs / this.running : 0;
    return Math.max(this.recentUseMs, runningAge);
  }

  /** Busy connection-milliseconds since the clock was made, including the running intervals so far. */
  busyMs(): number {
    return this.doneMs + this.running * performance.now() - this.startedSumMs;
  }
}
