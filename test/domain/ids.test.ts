import { describe, expect, it } from 'vitest';
import { newId, showOfId, showScopedId } from '../../src/domain/ids.js';

describe('ids', () => {
  it('are never the same, across many refills of the entropy they are cut from', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('hold'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^hold_[0-9a-f]{24}$/);
    // No two ids share a random tail either (each byte of entropy is used once).
    expect(new Set(ids.map((id) => id.slice(5))).size).toBe(ids.length);
  });

  it('name their show when made for one, and only then', () => {
    const show = newId('show');
    const ids = Array.from({ length: 1_000 }, () => showScopedId('hold', show));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(showOfId(id)).toBe(show);
    const plain = showScopedId('bkg', 'show_made_by_hand');
    expect(plain).toMatch(/^bkg_[0-9a-f]{24}$/);
    expect(showOfId(plain)).toBeNull();
  });
});
