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
// So look-ups go in batches (./batches.ts): the accounts asked for while a batch is
// out go together in the next one, one statement for all of them.
import { Batches } from './batches.js';

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

export class KnownAccounts {
  private readonly seen = new Map<string, number>();
  /** Accounts asked for and not answered yet (queued or in the batch that is out), so that a second asker waits for the same answer. */
  private readonly asked = new Map<string, Promise<boolean>>();
  private readonly batches: Batches<string, boolean>;

  constructor(
    lookup: AccountLookup,
    private readonly knownForMs = KNOWN_FOR_MS,
    private readonly lookupWaitMs = LOOKUP_WAIT_MS,
  ) {
    this.batches = new Batches(async (ids) => {
      const found = await lookup(ids);
      const now = Date.now();
      return ids.map((id) => {
        if (!found.has(id)) {
          this.seen.delete(id);
          return false;
        }
        if (this.seen.size >= MAX_KNOWN) this.seen.clear();
        this.seen.set(id, now);
        return true;
      });
    }, BATCH_MAX);
  }

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

  /** The answer for one account: the one already asked for, or a new ask in the next batch. */
  private ask(userId: string): Promise<boolean> {
    const pending = this.asked.get(userId);
    if (pending) return pending;
    const answer = this.batches.call(userId).finally(() => this.asked.delete(userId));
    this.asked.set(userId, answer);
    return answer;
  }
}
