// Idempotent requests as Stripe keeps them: per API key, the first request with
// a key claims it; once its endpoint has run, its status and body are saved and
// every retry with the same parameters gets exactly that answer back. A retry
// while the first is still running gets 409; other parameters get 400.
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

export class IdempotencyKeys {
  // Insertion order is age order, so expired keys are always at the front.
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly ttlMs: number = DEFAULT_KEY_TTL_MS) {}

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
