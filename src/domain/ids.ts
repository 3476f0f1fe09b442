import { randomBytes } from 'node:crypto';

/** Opaque, unguessable ids with a prefix that says what they name: hold_3f9c… */
export function newId(prefix: 'usr' | 'ven' | 'hall' | 'evt' | 'show' | 'hold' | 'bkg' | 'pay' | 'rfd' | 'tkt' | 'qe'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
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
