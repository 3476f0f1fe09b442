// Whether a signed token's account exists, for the purchase path. A hold used to
// learn it from a foreign key on holds.user_id; a shard has no users table, so the
// check is explicit: an account this instance has seen in the last minute is taken
// as existing, any other is read once from the control database. The service never
// deletes an account (one removed by hand is refused within a minute); while the
// control database does not answer, a validly signed token is trusted, so that
// shows on shards keep selling.
const KNOWN_FOR_MS = 60_000;
const MAX_KNOWN = 100_000;
/**
 * How long a hold waits for the look-up before the signature vouches for the account:
 * a silent control database must not add its bounds (seconds) to the purchase path's.
 * The look-up goes on; its answer is remembered for the next request.
 */
const LOOKUP_WAIT_MS = 250;

export class KnownAccounts {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly lookup: (userId: string) => Promise<boolean>,
    private readonly knownForMs = KNOWN_FOR_MS,
    private readonly lookupWaitMs = LOOKUP_WAIT_MS,
  ) {}

  /** False only when the control database answered, within the wait, that there is no such account. */
  async exists(userId: string): Promise<boolean> {
    const at = this.seen.get(userId);
    if (at !== undefined && Date.now() - at < this.knownForMs) return true;
    const answer = this.lookup(userId).then((found) => {
      if (!found) this.seen.delete(userId);
      else {
        if (this.seen.size >= MAX_KNOWN) this.seen.clear();
        this.seen.set(userId, Date.now());
      }
      return found;
    });
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
}
