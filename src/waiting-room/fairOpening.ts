// The fair opening: everyone who joined before the sale opened is placed in a
// random order at the opening. The order is a seeded permutation that anyone can
// recompute once the seed is published: sort the pre-queue's entry ids by
// sha256(seed ‖ entry id) (hex, ascending; ties, which need a SHA-256 collision,
// by entry id); the first gets position 1. Pure.
import { createHash } from 'node:crypto';

export function openingRank(seed: string, entryId: string): string {
  return createHash('sha256').update(seed).update(entryId).digest('hex');
}

/** The pre-queue's entry ids in their order at the opening (position = index + 1). */
export function openingOrder(seed: string, entryIds: Iterable<string>): string[] {
  return [...entryIds]
    .map((id) => ({ id, rank: openingRank(seed, id) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.id < b.id ? -1 : 1))
    .map((e) => e.id);
}
