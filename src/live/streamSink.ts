// A viewer's end of the seat map stream, as the fan-out (./seatStreams.ts) sees it:
// bytes in, and a word back when the viewer cannot keep up. ./eventStream.ts is the
// one over an HTTP response; tests use their own.
export interface StreamSink {
  /**
   * Writes whole events (UTF-8, shared by every viewer they go to: never changed);
   * false when the viewer cannot take more (too slow, or gone).
   */
  write(events: Buffer): boolean;
  /** Makes ready, off the event loop, what a big event will be sent as (a compressed snapshot); before write. */
  prepare?(events: Buffer): Promise<void>;
  /**
   * Keeps an idle stream open: writes `heartbeat` (a comment) unless bytes are still
   * waiting to be sent; false when the viewer has taken none of them for too long
   * (it stopped reading).
   */
  beat(heartbeat: Buffer): boolean;
  /** Ends the stream (the connection closes). */
  end(): void;
}
