// The edge in front of the public reads. The seat map and its sections summary
// "may be up to 2 s stale" (API.md) and carry an ETag: a CDN answers them. The
// rehearsal models that edge: one origin read per path per second, its answer
// shared by every buyer who asks within that second (a request already on its way
// is joined, as a CDN collapses requests). A failed read is not kept.
import type { BuyerHttp, Reply } from './http.js';
import type { Step } from './recorder.js';

export class EdgeCache {
  private readonly entries = new Map<string, { at: number; reply: Promise<Reply | null> }>();

  constructor(private readonly http: BuyerHttp, private readonly ttlMs = 1000) {}

  get(step: Step, path: string): Promise<Reply | null> {
    const now = performance.now();
    const hit = this.entries.get(path);
    if (hit && now - hit.at < this.ttlMs) return hit.reply;
    const reply = this.http.send(step, 'GET', path);
    const entry = { at: now, reply };
    this.entries.set(path, entry);
    void reply.then((r) => { if ((!r || r.status !== 200) && this.entries.get(path) === entry) this.entries.delete(path); });
    return reply;
  }
}
