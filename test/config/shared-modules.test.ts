// The suite's workers keep their modules from one test file to the next
// (vitest.config.ts, `isolate: false`), so a test file that mocks a module, stubs a
// global or changes process.env would change it for every file after it in the same
// worker. None may: a test passes what it needs as arguments (a config, a URL).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST_DIR = join(import.meta.dirname, '..');
const ROOT = join(TEST_DIR, '..');
/** The packages' own tests (packages/<name>/test) run in the same workers. */
const PACKAGE_TESTS = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
  .filter((e) => e.isDirectory()).map((e) => join(ROOT, 'packages', e.name, 'test'))
  .filter((dir) => readdirSync(join(dir, '..')).includes('test'));
const LEAKS = [
  /\bvi\s*\.\s*(do)?mock\s*\(/,
  /\bvi\s*\.\s*stub(Env|Global)\s*\(/,
  /\bprocess\s*\.\s*env\s*(\.\s*\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)/,
  /\bdelete\s+process\s*\.\s*env\b/,
  /\bObject\s*\.\s*assign\s*\(\s*process\s*\.\s*env\b/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.(ts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** The 1-based lines of `text` that would leak into the next test file. */
function leaks(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (LEAKS.some((re) => re.test(line)) ? [i + 1] : []));
}

describe('test files leave the shared modules as they found them', () => {
  it('recognizes what it looks for', () => {
    expect(leaks("vi.mock('../src/db/client.js')")).toEqual([1]);
    expect(leaks("x\nvi.stubEnv('DATABASE_URL', 'x')")).toEqual([2]);
    expect(leaks("process.env.DATABASE_URL = 'postgres://'")).toEqual([1]);
    expect(leaks("process.env['PORT'] ??= '0'")).toEqual([1]);
    expect(leaks('delete process.env.PORT')).toEqual([1]);
    expect(leaks("const url = process.env.DATABASE_URL ?? 'x'; if (process.env.CI === '1') {}")).toEqual([]);
  });

  it('no test file mocks a module, stubs a global or writes process.env', () => {
    const found = [TEST_DIR, ...PACKAGE_TESTS].flatMap(sources)
      .filter((f) => f !== import.meta.filename)
      .flatMap((f) => leaks(readFileSync(f, 'utf8')).map((line) => `${relative(ROOT, f)}:${line}`));
    expect(PACKAGE_TESTS.length).toBeGreaterThan(0);
    expect(found).toEqual([]);
  });
});
