// The edge in front of the waiting room. GET /v1/shows/{id}/queue is public and
// may be up to 2 s stale, so a CDN may answer it for everyone: the rehearsal reads
// it once a second for all its buyers (as an edge cache would) instead of each of
// 200,000 buyers polling it. A buyer asks to be admitted only once `serving` has
// reached its position (and honours Retry-After when told it is too early).
import type { BuyerHttp } from './http.js';

export type Turn = 'turn' | 'sold_out' | 'ended';

/** What the rehearsal reads of GET …/queue: the contract's fields it uses. */
export interface QueueStatus {
  serving: number;
  waiting: number;
  admit_rate_per_minute: number;
  paused: boolean;
  sold_out: boolean;
}

interface Waiter { position: number; resolve: (t: Turn) => void }

export class QueueEdge {
  status: QueueStatus | null = null;
  private readonly heap: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly http: BuyerHttp, private readonly showId: string, private readonly everyMs = 1000) {}

  start(): void {
    // A poll that fails (the service away) is counted by the client and tried again next
    // turn; it never stops the polling nor escapes as an unhandled rejection.
    const poll = async () => {
      try {
        const r = await this.http.send('queue status', 'GET', `/v1/shows/${this.showId}/queue`);
        if (r?.status === 200) this.update(r.body as QueueStatus);
      } catch {
        // the next turn asks again
      } finally {
        if (!this.stopped) this.timer = setTimeout(() => void poll(), this.everyMs);
      }
    };
    void poll();
  }

  /** Resolves when the shared status says `serving` has reached `position`, the room sold out, or the run ended. */
  waitTurn(position: number): Promise<Turn> {
    if (this.stopped) return Promise.resolve('ended');
    if (this.status?.sold_out) return Promise.resolve('sold_out');
    if (this.status && this.status.serving >= position) return Promise.resolve('turn');
    return new Promise((resolve) => this.push({ position, resolve }));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.heap.length) this.pop().resolve('ended');
  }

  /** A fresh status: wakes everyone it serves (exposed for tests). */
  update(s: QueueStatus): void {
    this.status = s;
    if (s.sold_out) {
      while (this.heap.length) this.pop().resolve('sold_out');
      return;
    }
    while (this.heap.length && this.heap[0]!.position <= s.serving) this.pop().resolve('turn');
  }

  // A binary min-heap by position: 200,000 waiters, woken in position order.
  private push(w: Waiter): void {
    const h = this.heap;
    h.push(w);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (h[p]!.position <= h[i]!.position) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  private pop(): Waiter {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.position < h[m]!.position) m = l;
        if (r < h.length && h[r]!.position < h[m]!.position) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}
