// Idempotent requests as Stripe keeps them: per API key, the first request with
// a key claims it; once its endpoint has run, its status and body are saved and
// every retry with the same parameters gets exactly that answer back. A retry
// while the first is still running gets 409; other parameters get 400. Saved
// answers go to the books' sink like every other committed change.
import type { BookEntry } from './journal.js';

export interface SavedAnswer {
  status: number;
  /** The serialized body, so a replay is byte for byte the first answer. */
  body: string;
  requestId: string;
}

interface Entry {
  fingerprint: string;
  answer: SavedAnswer | null;
  createdAt: number;
}

export type Claim =
  | { kind: 'first'; save: (answer: SavedAnswer) => void; release: () => void }
  | { kind: 'replay'; answer: SavedAnswer }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };

/** Stripe keeps keys for 24 hours; after that a key may be used again. */
export const DEFAULT_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** The request's endpoint and parameters, independent of parameter order. */
export function fingerprint(method: string, path: string, params: unknown): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
    }
    return value;
  };
  return `${method} ${path} ${JSON.stringify(canonical(params))}`;
}

type SavedKey = Extract<BookEntry, { kind: 'key' }>;

export class IdempotencyKeys {
  // Insertion order is age order, so expired keys are always at the front.
  private readonly entries = new Map<string, Entry>();
  private sink: (entry: SavedKey) => void = () => {};

  constructor(private readonly ttlMs: number = DEFAULT_KEY_TTL_MS) {}

  /** From now on every saved answer is also handed to `sink`. */
  persistTo(sink: (entry: SavedKey) => void): void {
    this.sink = sink;
  }

  /** Takes back a saved answer read from disk (in the order saved), unless it has expired. */
  replay({ value }: SavedKey): void {
    if (value.createdAt < Date.now() - this.ttlMs) return;
    this.entries.delete(value.id);
    this.entries.set(value.id, { fingerprint: value.fingerprint, answer: value.answer, createdAt: value.createdAt });
  }

  /** Every saved answer that has not expired, oldest first: what a compacted journal holds. */
  *saved(): Generator<SavedKey> {
    const cutoff = Date.now() - this.ttlMs;
    for (const [id, e] of this.entries) {
      if (e.answer !== null && e.createdAt >= cutoff) yield { kind: 'key', value: { id, fingerprint: e.fingerprint, answer: e.answer, createdAt: e.createdAt } };
    }
  }

  claim(apiKey: string, key: string, print: string): Claim {
    this.forgetExpired();
    const id = `${apiKey}\u0000${key}`;
    const entry = this.entries.get(id);
    if (entry) {
      if (entry.fingerprint !== print) return { kind: 'mismatch' };
      return entry.answer ? { kind: 'replay', answer: entry.answer } : { kind: 'in_progress' };
    }
    const fresh: Entry = { fingerprint: print, answer: null, createdAt: Date.now() };
    this.entries.set(id, fresh);
    return {
      kind: 'first',
      save: (answer) => {
        fresh.answer = answer;
        this.sink({ kind: 'key', value: { id, fingerprint: print, answer, createdAt: fresh.createdAt } });
      },
      // The endpoint never ran (validation, crash): the key is free again, as at Stripe.
      release: () => {
        if (this.entries.get(id) === fresh && fresh.answer === null) this.entries.delete(id);
      },
    };
  }

  get size(): number {
    return this.entries.size;
  }

  private forgetExpired(): void {
    const cutoff = Date.now() - this.ttlMs;
    for (const [id, entry] of this.entries) {
      if (entry.createdAt >= cutoff) break;
      if (entry.answer === null) continue; // still running: kept until it ends
      this.entries.delete(id);
    }
  }
}
