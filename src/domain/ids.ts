import { randomFillSync } from 'node:crypto';

// Random bytes for ids come from the CSPRNG 4 KiB at a time, each byte used once (as
// crypto.randomUUID caches its entropy): a call to the CSPRNG per id cost a hold about
// 10 µs of the service's CPU (a system call and OpenSSL's fork check), a tenth of its
// own share of the hot path (bench:hotpath's profile).
const entropy = Buffer.alloc(4096);
let used = entropy.length;

/** `bytes` fresh random bytes as hex; never the same bytes twice. */
export function randomHex(bytes: number): string {
  if (used + bytes > entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  const hex = entropy.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

/** Opaque, unguessable ids with a prefix that says what they name: hold_3f9c… */
export function newId(prefix: 'usr' | 'ven' | 'hall' | 'evt' | 'show' | 'hold' | 'bkg' | 'pay' | 'rfd' | 'tkt' | 'qe'): string {
  return `${prefix}_${randomHex(12)}`;
}

/** The records that live with a show's inventory, and whose ids name their show. */
export type ShowScopedPrefix = 'hold' | 'bkg' | 'pay' | 'rfd' | 'tkt';

const SHOW_ID = /^show_([0-9a-f]{24})$/;
const SCOPED_ID = /^(hold|bkg|pay|rfd|tkt)_s([0-9a-f]{24})([0-9a-f]{24})$/;

/**
 * An id that names its show, so that it leads to the show's shard without asking
 * every shard: `hold_s<the show id's 24 hex><24 random hex>`. A show id not made by
 * newId('show') gets a plain id (found by asking each shard).
 */
export function showScopedId(prefix: ShowScopedPrefix, showId: string): string {
  const show = SHOW_ID.exec(showId);
  return show ? `${prefix}_s${show[1]}${randomHex(12)}` : newId(prefix);
}

/** The show a show-scoped id names; null for an id made before ids named their show (or not ours). */
export function showOfId(id: string): string | null {
  const m = SCOPED_ID.exec(id);
  return m ? `show_${m[2]}` : null;
}

/** JSON with object keys sorted, so that two bodies that mean the same compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
