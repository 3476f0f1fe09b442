// One module writes seat and hold rows (invariant 11): every statement that writes
// show_seats or holds — insert, update, delete, merge, copy, truncate — lives in
// src/db/seatTransitions.ts, or is the claim function's own migration (claim_seats,
// or claim_best_seats: best available's claim). A write anywhere else in src/ or in a
// later migration fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const HOME = 'src/db/seatTransitions.ts';
/** The second home: moving a show's inventory between databases copies and deletes its rows whole, none of them a seat's move. */
const MOVE_HOME = 'src/db/showMove.ts';

/** Every way a statement writes `table`: `truncate` also as one of several tables. */
const writesOf = (table: string) => [
  new RegExp(`\\bupdate\\s+(only\\s+)?${table}\\b`, 'i'),
  new RegExp(`\\binsert\\s+into\\s+${table}\\b`, 'i'),
  new RegExp(`\\bdelete\\s+from\\s+(only\\s+)?${table}\\b`, 'i'),
  new RegExp(`\\bmerge\\s+into\\s+${table}\\b`, 'i'),
  new RegExp(`\\bcopy\\s+${table}\\b`, 'i'),
  new RegExp(`\\btruncate\\s+(table\\s+)?(only\\s+)?([\\w."]+\\s*,\\s*)*${table}\\b`, 'i'),
];
const WRITES = [...writesOf('show_seats'), ...writesOf('holds')];

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p, ext) : e.name.endsWith(ext) ? [p] : [];
  });
}

/** Each line (1-based) of `text` where a statement starts writing show_seats or holds. */
function seatWrites(text: string): number[] {
  const lines: number[] = [];
  for (const re of WRITES) {
    for (const m of text.matchAll(new RegExp(re.source, 'gi'))) lines.push(text.slice(0, m.index).split('\n').length);
  }
  return lines.sort((a, b) => a - b);
}

/**
 * Migrations after the one that last (re)defines claim_seats, which is the claim's
 * allowed SQL home, except those that define best available's claim, claim_best_seats.
 */
function laterMigrations(): { claim: string; later: string[] } {
  const all = files(join(ROOT, 'migrations'), '.sql').sort();
  const defines = (name: string) => (f: string) => new RegExp(`create\\s+(or\\s+replace\\s+)?function\\s+${name}\\b`, 'i').test(readFileSync(f, 'utf8'));
  const claim = all.filter(defines('claim_seats')).at(-1)!;
  return { claim, later: all.slice(all.indexOf(claim) + 1).filter((f) => !defines('claim_best_seats')(f)) };
}

describe('seat and hold rows are written by one module', () => {
  it('finds the writes it looks for (in the module itself, and every kind of write)', () => {
    const home = readFileSync(join(ROOT, HOME), 'utf8');
    // The shared move shape, show creation's insert, and the hold's own moves.
    expect(seatWrites(home).length).toBeGreaterThanOrEqual(8);
    expect(seatWrites("await db.query(`UPDATE\n show_seats set status = 'held'`)")).toEqual([1]);
    expect(seatWrites('insert into show_seats (show_id) values ($1)')).toEqual([1]);
    expect(seatWrites('x\ndelete from show_seats where show_id = $1')).toEqual([2]);
    expect(seatWrites('DELETE FROM ONLY show_seats')).toEqual([1]);
    expect(seatWrites('truncate show_seats')).toEqual([1]);
    expect(seatWrites('TRUNCATE TABLE ONLY show_seats cascade')).toEqual([1]);
    expect(seatWrites('truncate table bookings, public.tickets, show_seats restart identity')).toEqual([1]);
    expect(seatWrites('merge into show_seats s using x on true')).toEqual([1]);
    expect(seatWrites("update holds set status = 'expired'")).toEqual([1]);
    expect(seatWrites('delete from holds where id = $1')).toEqual([1]);
    expect(seatWrites('truncate holds')).toEqual([1]);
    // Not writes: reads, and other tables whose names start the same.
    expect(seatWrites('select * from show_seats; delete from show_seats_archive; update holds_log set x = 1; truncate holdsx')).toEqual([]);
  });

  it('finds the move module\'s copies and deletes (its second home)', () => {
    expect(seatWrites(readFileSync(join(ROOT, MOVE_HOME), 'utf8')).length).toBeGreaterThanOrEqual(4);
  });

  it('has no seat or hold write anywhere else in src/ or in a migration after the claim function', () => {
    const { claim, later } = laterMigrations();
    expect(relative(ROOT, claim)).toMatch(/^migrations\/\d{4}_.*\.sql$/);
    const elsewhere = [...files(join(ROOT, 'src'), '.ts'), ...later]
      .map((f) => relative(ROOT, f))
      .filter((f) => f !== HOME && f !== MOVE_HOME)
      .flatMap((f) => seatWrites(readFileSync(join(ROOT, f), 'utf8')).map((line) => `${f}:${line}`));
    expect(elsewhere, `seat or hold rows written outside ${HOME}`).toEqual([]);
  });
});
