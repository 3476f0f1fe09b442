// Calls that go to the database together: while one batch is out, the calls made
// meanwhile queue, and go as the next batch when it is answered — one statement
// for all of them (up to `max`). At a trickle each call goes alone and at once;
// under load a round trip carries many. Used for the account look-ups of the
// purchase path (./knownAccounts.ts) and the recording of provider events
// (./eventRecords.ts).
interface Queued<T, R> { item: T; resolve: (r: R) => void; reject: (e: Error) => void }

export class Batches<T, R> {
  private queued: Queued<T, R>[] = [];
  private out = false;

  /**
   * `send` answers one result per item, in order; an Error in its place fails that call
   * alone, a throw every call of its batch.
   */
  constructor(private readonly send: (items: readonly T[]) => Promise<readonly (R | Error)[]>, private readonly max: number) {}

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (!this.out) this.sendNext();
    });
  }

  private sendNext(): void {
    if (this.queued.length === 0) return;
    const batch = this.queued.length <= this.max ? this.queued : this.queued.slice(0, this.max);
    this.queued = batch === this.queued ? [] : this.queued.slice(this.max);
    this.out = true;
    this.send(batch.map((q) => q.item)).then(
      (results) => batch.forEach((q, i) => {
        const r = results[i];
        if (r instanceof Error) q.reject(r);
        else q.resolve(r as R);
      }),
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        for (const q of batch) q.reject(e);
      },
    ).finally(() => {
      this.out = false;
      this.sendNext();
    });
  }
}
