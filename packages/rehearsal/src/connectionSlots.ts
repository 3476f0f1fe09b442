// The buyers' turns at the client's connections. undici queues a request beyond its
// connections itself, but a request whose AbortSignal fires while it waits there is
// not simply dropped: when its turn comes, undici takes a connection for it (a new
// one, if the last was closed) and destroys that connection to abort it. In a burst
// every request that timed out in the queue cost a TCP connection opened and closed
// for nothing (the rehearsal's CPU went to connect, close and the abort's errors, the
// service's listen queue filled with connections closed before it accepted them),
// and timeouts bred more timeouts. So the wait for a connection happens here, where
// giving up costs nothing; undici is handed a request only with a connection free.

interface Waiter {
  take: () => void;
  /** Gave up waiting: skipped when its turn comes. */
  gone: boolean;
}

export class ConnectionSlots {
  private free: number;
  private readonly queue: Waiter[] = [];
  private head = 0;

  constructor(readonly size: number) {
    this.free = size;
  }

  /** True once a slot is taken (give it back with release()); false when none came within waitMs. */
  take(waitMs: number): Promise<boolean> {
    if (this.free > 0 && this.head === this.queue.length) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => { waiter.gone = true; resolve(false); }, Math.max(0, waitMs));
      const waiter: Waiter = { gone: false, take: () => { clearTimeout(timer); resolve(true); } };
      this.queue.push(waiter);
    });
  }

  release(): void {
    while (this.head < this.queue.length) {
      const next = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as Waiter;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      if (!next.gone) {
        next.take();
        return;
      }
    }
    this.free++;
  }

  /** Requests waiting for a slot now (those that gave up included until their turn is passed). */
  get waiting(): number {
    return this.queue.length - this.head;
  }
}
