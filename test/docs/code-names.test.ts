// Every code name that docs/states.md and docs/locking.md cite exists: a file path
// or migration names a file of the project, and an identifier (a function, a SQL
// function, a table, a column, a setting) occurs in the code of src/ or migrations/,
// comments left out — a name that survives only in a comment is gone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = ['docs/states.md', 'docs/locking.md'];

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p, ext) : e.name.endsWith(ext) ? [p] : [];
  });
}

/** Source text without its comments (`//` and `/* *\/` in TypeScript, `--` in SQL); string literals, where SQL lives, stay. */
function code(text: string, sql: boolean): string {
  const withoutBlocks = text.replace(/\/\*[\s\S]*?\*\//g, ' ');
  return withoutBlocks.split('\n').map((line) => (sql ? line.replace(/--.*$/, '') : line.replace(/(^|[\s;,{}()])\/\/.*$/, '$1'))).join('\n');
}

const tree = [
  ...files(join(ROOT, 'src'), '.ts').map((f) => code(readFileSync(f, 'utf8'), false)),
  ...files(join(ROOT, 'migrations'), '.sql').map((f) => code(readFileSync(f, 'utf8'), true)),
].join('\n');
const words = new Set(tree.match(/[A-Za-z_][A-Za-z0-9_]*/g));

const PATH = /^(src|migrations|test|bench|docs|web)\/[\w./-]+$/;
const MIGRATION = /^\d{4}_\w+\.sql$/;
/** An identifier that can only be code: snake_case, camelCase or PascalCase with an inner capital, or UPPER_CASE. */
const CODE_LIKE = /^(?:[a-z0-9]+_[a-z0-9_]+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$/;

/** What the backticked spans of `markdown` name, and which of those the project does not have. */
function missingNames(markdown: string): { cited: string[]; missing: string[] } {
  const cited: string[] = [];
  const missing: string[] = [];
  for (const [, span] of markdown.matchAll(/`([^`\n]+)`/g)) {
    const s = span!.trim();
    if (PATH.test(s) || MIGRATION.test(s)) {
      cited.push(s);
      if (!existsSync(join(ROOT, MIGRATION.test(s) ? `migrations/${s}` : s))) missing.push(s);
      continue;
    }
    const tokens = s.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
    // One name (`lockBooking`, `show_seats.status`, `transaction()`) is checked whole;
    // in a SQL fragment (`order by seat_id for update`) only what looks like code.
    const single = /^[\w.]+(\(.*\))?$/.test(s);
    for (const t of single ? tokens : tokens.filter((w) => CODE_LIKE.test(w))) {
      cited.push(t);
      if (!words.has(t)) missing.push(t);
    }
  }
  return { cited, missing: [...new Set(missing)] };
}

describe('docs name code that exists', () => {
  it('finds a name that does not exist, and one that lives only in a comment', () => {
    expect(missingNames('`confirmPayment` then `noSuchMove` in `src/db/nowhere.ts` (`0099_none.sql`)').missing)
      .toEqual(['noSuchMove', 'src/db/nowhere.ts', '0099_none.sql']);
    expect(missingNames('`set local lock_timeout = 2s` and `order by no_such_column for update`').missing).toEqual(['no_such_column']);
    expect(code('const a = 1; // confirmBooking\n/* confirmHold */ x', false)).not.toMatch(/confirm/);
    expect(code("select 'http://x' -- claim_seats", true)).toBe("select 'http://x' ");
  });

  it.each(DOCS)('%s names the newest migration that defines claim_seats as its definition', (doc) => {
    const defining = files(join(ROOT, 'migrations'), '.sql').sort()
      .filter((f) => /create\s+(or\s+replace\s+)?function\s+claim_seats\b/i.test(readFileSync(f, 'utf8')))
      .map((f) => `migrations/${f.split('/').at(-1)}`);
    const named = [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/latest\s+definition\s+`([^`]+)`/g)].map((m) => m[1]);
    expect(named.length, 'the claim\'s definition is named').toBeGreaterThan(0);
    for (const n of named) expect(n).toBe(defining.at(-1));
  });

  it.each(DOCS)('every code name %s cites exists in src/ or migrations/', (doc) => {
    const { cited, missing } = missingNames(readFileSync(join(ROOT, doc), 'utf8'));
    expect(cited.length, 'names cited').toBeGreaterThan(20);
    expect(missing, `${doc} names code that does not exist`).toEqual([]);
  });
});
