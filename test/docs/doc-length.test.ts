// docs/ describes how things work now: no page over 300 lines (history goes to
// bench/results/ or to commit messages), and every setting a page names in backticks
// (`SOME_VAR_NAME`: capitals, digits and underscores) is one the service reads, i.e. the
// name appears in src/. A name the page itself assigns with `export NAME=` is a shell
// variable of a guide, not a setting. Each check is also run on a planted page, so
// a check that could never fail would show here.
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 300;

async function pages(dir: string): Promise<{ name: string; text: string }[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.md')).sort();
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(dir, name), 'utf8') })));
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  const lines = text.split('\n');
  return text.endsWith('\n') ? lines.length - 1 : lines.length;
}

/** Pages over the limit, as "name: N lines". */
async function overLong(docsDir: string): Promise<string[]> {
  return (await pages(docsDir)).filter((p) => lineCount(p.text) > MAX_LINES).map((p) => `${p.name}: ${lineCount(p.text)} lines`);
}

/** Every file's text under `dir` (recursively), joined. */
async function textUnder(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) parts.push(await textUnder(p));
    else if (entry.isFile()) parts.push(await readFile(p, 'utf8'));
  }
  return parts.join('\n');
}

/** Backticked setting names the code does not contain, as "page: NAME". */
async function unknownSettings(docsDir: string, codeDir: string): Promise<string[]> {
  const code = await textUnder(codeDir);
  const missing: string[] = [];
  for (const page of await pages(docsDir)) {
    const assigned = new Set([...page.text.matchAll(/\bexport\s+((?:[A-Z][A-Z0-9_]*=\S*\s*)+)/g)]
      .flatMap((m) => [...m[1]!.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((a) => a[1]!)));
    const named = new Set([...page.text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!));
    for (const name of named) {
      if (assigned.has(name)) continue;
      if (!new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(code)) missing.push(`${page.name}: ${name}`);
    }
  }
  return missing.sort();
}

describe('docs/', () => {
  it(`has no page over ${MAX_LINES} lines`, async () => {
    // Joined, so a failure names the pages.
    expect((await overLong(path.join(ROOT, 'docs'))).join('\n')).toBe('');
  });

  it('names in backticks only settings that src/ reads', async () => {
    expect((await unknownSettings(path.join(ROOT, 'docs'), path.join(ROOT, 'src'))).join('\n')).toBe('');
  });
});

describe('the checks, on planted pages', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'doc-length-'));
    await mkdir(path.join(dir, 'docs'));
    await mkdir(path.join(dir, 'src'));
    await writeFile(path.join(dir, 'src', 'config.ts'), "const port = env.BOXOFFICE_PORT; const x = env.PREFIXED_NAME_LONGER;\n");
    await writeFile(path.join(dir, 'docs', 'short.md'), `${'a line\n'.repeat(MAX_LINES)}`);
    await writeFile(path.join(dir, 'docs', 'long.md'), `${'a line\n'.repeat(MAX_LINES + 1)}`);
    await writeFile(path.join(dir, 'docs', 'knobs.md'), [
      'Set `BOXOFFICE_PORT` to move it; `NO_SUCH_KNOB` does nothing; `PREFIXED_NAME` is only a prefix of a real one.',
      'In a guide: `export GUIDE_TOKEN=abc OTHER_VAR=1`, then `GUIDE_TOKEN` and `OTHER_VAR` are shell variables.',
      'Not a setting: `Retry-After`, `HS256`, `X`.',
      '',
    ].join('\n'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a page one line over the limit, not one at it', async () => {
    expect(await overLong(path.join(dir, 'docs'))).toEqual([`long.md: ${MAX_LINES + 1} lines`]);
  });

  it('reports a setting the code does not name, whole names only', async () => {
    expect(await unknownSettings(path.join(dir, 'docs'), path.join(dir, 'src'))).toEqual(['knobs.md: NO_SUCH_KNOB', 'knobs.md: PREFIXED_NAME']);
  });
});
