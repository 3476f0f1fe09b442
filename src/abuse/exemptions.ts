// RATE_LIMIT_EXEMPT: trusted clients (load tests, the on-sale rehearsal) that no
// rate limit refuses. Matching is node:net's BlockList, IPv4 and IPv6 alike.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export class ClientExemptions {
  private readonly list = new BlockList();
  /** Verdicts by address: the list never changes, and a BlockList check costs microseconds on every request. */
  private readonly verdicts = new Map<string, boolean>();
  readonly empty: boolean;

  /** Each entry an address or a CIDR range; anything else is refused at boot. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, bits, extra] = entry.split('/');
      const family = isIPv4(address ?? '') ? 'ipv4' : isIPv6(address ?? '') ? 'ipv6' : null;
      const prefix = bits === undefined ? null : Number(bits);
      const maxBits = family === 'ipv4' ? 32 : 128;
      if (!family || extra !== undefined || (prefix !== null && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxBits && bits !== ''))) {
        throw new Error(`RATE_LIMIT_EXEMPT: "${entry}" is not an address or a CIDR range`);
      }
      if (prefix === null) this.list.addAddress(address!, family);
      else this.list.addSubnet(address!, prefix, family);
    }
    this.empty = entries.length === 0;
  }

  /** Whether the client address is exempt; `::ffff:a.b.c.d` counts as `a.b.c.d`. */
  covers(address: string | undefined): boolean {
    if (this.empty || !address) return false;
    let verdict = this.verdicts.get(address);
    if (verdict === undefined) {
      verdict = this.check(address);
      if (this.verdicts.size >= 10_000) this.verdicts.clear();
      this.verdicts.set(address, verdict);
    }
    return verdict;
  }

  private check(address: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return this.list.check(mapped[1]!, 'ipv4');
    if (isIPv4(address)) return this.list.check(address, 'ipv4');
    return isIPv6(address) && this.list.check(address, 'ipv6');
  }
}
