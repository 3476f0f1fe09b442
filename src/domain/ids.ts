import { randomBytes } from 'node:crypto';

/** Opaque, unguessable ids with a prefix that says what they name: hold_3f9c… */
export function newId(prefix: 'usr' | 'ven' | 'hall' | 'evt' | 'show' | 'hold' | 'bkg' | 'pay' | 'rfd' | 'tkt'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
