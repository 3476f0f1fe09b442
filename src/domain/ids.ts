import { randomBytes } from 'node:crypto';

/** Opaque, unguessable ids with a prefix that says what they name: hold_3f9c… */
export function newId(prefix: 'usr' | 'ven' | 'hall' | 'evt' | 'show' | 'hold' | 'bkg' | 'pay' | 'rfd' | 'tkt' | 'qe'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
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
  return show ? `${prefix}_s${show[1]}${randomBytes(12).toString('hex')}` : newId(prefix);
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
