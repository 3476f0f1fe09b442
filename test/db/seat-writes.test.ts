// One module writes seat rows (invariant 11): every statement that writes
// show_seats lives in src/db/seatTransitions.ts, or is the claim function's own
// migration. A write anywhere else in src/ or in a later migration fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const HOME = 'src/db/seatTransitions.ts';
const WRITES = [/\bupdate\s+(only\s+)?show_seats\b/i, /\binsert\s+into\s+show_seats\b/i, /\bmerge\s+into\s+show_seats\b/i, /\bcopy\s+show_seats\b/i];

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p, ext) : e.name.endsWith(ext) ? [p] : [];
  });
}

/** Each line (1-based) of `text` where a statement starts writing show_seats. */
function seatWrites(text: string): number[] {
  const lines: number[] = [];
  for (const re of WRITES) {
    for (const m of text.matchAll(new RegExp(re.source, 'gi'))) lines.push(text.slice(0, m.index).split('\n').length);
  }
  return lines.sort((a, b) => a - b);
}

/** Migrations after the one that last (re)defines claim_seats, which is the claim's one allowed SQL home. */
function laterMigrations(): { claim: string; later: string[] } {
  const all = files(join(ROOT, 'migrations'), '.sql').sort();
  const claim = all.filter((f) => /create\s+(or\s+replace\s+)?function\s+claim_seats\b/i.test(readFileSync(f, 'utf8'))).at(-1)!;
  return { claim, later: all.slice(all.indexOf(claim) + 1) };
}

describe('seat rows are written by one module', () => {
  it('finds the writes it looks for (in the module itself)', () => {
    const home = readFileSync(join(ROOT, HOME), 'utf8');
    // The shared move shape, and show creation's insert.
    expect(seatWrites(home).length).toBeGreaterThanOrEqual(2);
    expect(seatWrites("await db.query(`UPDATE\n show_seats set status = 'held'`)")).toEqual([1]);
  });

  it('has no seat write anywhere else in src/ or in a migration after the claim function', () => {
    const { claim, later } = laterMigrations();
    expect(relative(ROOT, claim)).toMatch(/^migrations\/\d{4}_.*\.sql$/);
    const elsewhere = [...files(join(ROOT, 'src'), '.ts'), ...later]
      .map((f) => relative(ROOT, f))
      .filter((f) => f !== HOME)
      .flatMap((f) => seatWrites(readFileSync(join(ROOT, f), 'utf8')).map((line) => `${f}:${line}`));
    expect(elsewhere, `seat rows written outside ${HOME}`).toEqual([]);
  });
});
