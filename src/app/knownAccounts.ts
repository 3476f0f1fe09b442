// Whether a signed token's account exists, for the purchase path. A hold used to
// learn it from a foreign key on holds.user_id; a shard has no users table, so the
// check is explicit: an account this instance has seen in the last minute is taken
// as existing, any other is read once from the control database. The service never
// deletes an account (one removed by hand is refused within a minute); while the
// control database does not answer, a validly signed token is trusted, so that
// shows on shards keep selling.
//
// An on-sale brings thousands of accounts the instance has not seen, each on its
// first hold: one look-up each was a round trip per buyer on the pool the claims
// need (bench:overload's crowd: 0.94 of its 4.03 request round trips a purchase).
// So look-ups go in batches: the accounts asked for while a batch is out go
// together in the next one, one statement for all of them.
const KNOWN_FOR_MS = 60_000;
const MAX_KNOWN = 100_000;
/**
 * How long a hold waits for the look-up before the signature vouches for the account:
 * a silent control database must not add its bounds (seconds) to the purchase path's.
 * The look-up goes on; its answer is remembered for the next request.
 */
const LOOKUP_WAIT_MS = 250;
/** Accounts read in one statement at most. */
const BATCH_MAX = 500;

/** Reads which of the accounts exist: one statement for all of them. */
export type AccountLookup = (userIds: readonly string[]) => Promise<ReadonlySet<string>>;

/** An account's answer, and how to give it to those waiting for it. */
interface Asked { promise: Promise<boolean>; settle: (found: boolean | Error) => void }

export class KnownAccounts {
  private readonly seen = new Map<string, number>();
  /** Accounts asked for and not sent yet, each with the answer its askers wait for. */
  private readonly queued = new Map<string, Asked>();
  /** Accounts in the batch that is out (empty: none is), so that a second asker waits for the same answer. */
  private readonly sent = new Map<string, Promise<boolean>>();

  constructor(
    private readonly lookup: AccountLookup,
    private readonly knownForMs = KNOWN_FOR_MS,
    private readonly lookupWaitMs = LOOKUP_WAIT_MS,
  ) {}

  /** False only when the control database answered, within the wait, that there is no such account. */
  async exists(userId: string): Promise<boolean> {
    const at = this.seen.get(userId);
    if (at !== undefined && Date.now() - at < this.knownForMs) return true;
    const answer = this.ask(userId);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<true>((resolve) => { timer = setTimeout(() => resolve(true), this.lookupWaitMs); });
    try {
      return await Promise.race([answer, late]);
    } catch {
      return true; // the control database is away or busy: the signature vouches for the account
    } finally {
      clearTimeout(timer);
      answer.catch(() => {});
    }
  }

  /** The answer for one account: the batch that is out, the next one, or a batch sent now. */
  private ask(userId: string): Promise<boolean> {
    const pending = this.sent.get(userId) ?? this.queued.get(userId)?.promise;
    if (pending) return pending;
    let settle!: (found: boolean | Error) => void;
    const promise = new Promise<boolean>((resolve, reject) => {
      settle = (found) => (found instanceof Error ? reject(found) : resolve(found));
    });
    this.queued.set(userId, { promise, settle });
    if (this.sent.size === 0) this.sendBatch();
    return promise;
  }

  /** Sends what is queued (up to BATCH_MAX) as one look-up; when it is answered, the next. */
  private sendBatch(): void {
    const batch: [string, Asked][] = [];
    for (const entry of this.queued) {
      if (batch.length === BATCH_MAX) break;
      batch.push(entry);
    }
    if (batch.length === 0) return;
    for (const [id, q] of batch) {
      this.queued.delete(id);
      this.sent.set(id, q.promise);
    }
    const ids = batch.map(([id]) => id);
    this.lookup(ids).then(
      (found) => {
        const now = Date.now();
        for (const [id, q] of batch) {
          if (found.has(id)) {
            if (this.seen.size >= MAX_KNOWN) this.seen.clear();
            this.seen.set(id, now);
          } else this.seen.delete(id);
          q.settle(found.has(id));
        }
      },
      (err: unknown) => {
        for (const [, q] of batch) q.settle(err instanceof Error ? err : new Error(String(err)));
      },
    ).finally(() => {
      for (const id of ids) this.sent.delete(id);
      this.sendBatch();
    });
  }
}
