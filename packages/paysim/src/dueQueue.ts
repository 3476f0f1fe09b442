// A min-heap of things that fall due at a time, earliest (then first queued)
// on top: webhook deliveries waiting for their send time or their next retry.
// A heap, because an endpoint that is down for a while can have many thousands waiting.
export interface Due {
  dueAt: number;
  seq: number;
}

function before(a: Due, b: Due): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
}

export class DueQueue<T extends Due> {
  private readonly heap: T[] = [];

  get size(): number {
    return this.heap.length;
  }

  /** When the earliest item falls due, or null when empty. */
  nextDueAt(): number | null {
    return this.heap[0]?.dueAt ?? null;
  }

  push(item: T): void {
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as T, heap[parent] as T)) break;
      [heap[i], heap[parent]] = [heap[parent] as T, heap[i] as T];
      i = parent;
    }
  }

  /** Removes and returns every item due at `now`, earliest first. */
  takeDue(now: number): T[] {
    const out: T[] = [];
    while (this.heap.length > 0 && (this.heap[0] as T).dueAt <= now) out.push(this.pop());
    return out;
  }

  private pop(): T {
    const heap = this.heap;
    const top = heap[0] as T;
    const last = heap.pop() as T;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l] as T, heap[m] as T)) m = l;
        if (r < heap.length && before(heap[r] as T, heap[m] as T)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as T, heap[i] as T];
        i = m;
      }
    }
    return top;
  }
}
