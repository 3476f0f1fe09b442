// Open seat map streams by client address, for the per-address bound: an address
// leaves the map with its last stream, so the map holds only addresses streaming now.
export class AddressCounts {
  private readonly counts = new Map<string, number>();

  /** Addresses with at least one stream open. */
  get size(): number {
    return this.counts.size;
  }

  of(address: string): number {
    return this.counts.get(address) ?? 0;
  }

  add(address: string): void {
    this.counts.set(address, this.of(address) + 1);
  }

  remove(address: string): void {
    const left = this.of(address) - 1;
    if (left > 0) this.counts.set(address, left);
    else this.counts.delete(address);
  }
}
