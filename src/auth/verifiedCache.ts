// Tokens already verified, until they expire. A client sends the same token with
// every request, and verifying an HMAC through WebCrypto is the hot path's largest
// cost; only verified tokens enter, and the map is bounded (cleared when full).
export class VerifiedCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAtMs: number }>();

  constructor(private readonly bound: number) {}

  /** The value of a token verified before and not yet expired, or undefined. */
  get(token: string): T | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (hit.expiresAtMs <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return hit.value;
  }

  set(token: string, value: T, expiresAtMs: number): void {
    if (this.entries.size >= this.bound) this.entries.clear();
    this.entries.set(token, { value, expiresAtMs });
  }
}
