// `npm run lint` (part of `npm test`) fails on a violation of each rule: every
// layering rule of .dependency-cruiser.cjs, SQL outside src/db/, and the linter's
// bug-finding rules. The layering violations are planted in a throwaway tree in the
// system's temporary directory and cruised by the same command `npm run lint` runs;
// the linter's are linted as text under a real file's name. The working tree is
// never written, whatever happens to the test.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const run = promisify(execFile);
/** What `npm run lint` cruises. */
const CRUISED = '{src,bench,web,packages}/**/*.{ts,tsx}';
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

interface RuleSet { forbidden: { name: string }[] }
const ruleNames = (createRequire(import.meta.url)(CONFIG) as RuleSet).forbidden.map((r) => r.name);

/** Modules the planted ones import: their content does not matter, their place does. */
const TARGETS: Record<string, string> = {
  'src/db/client.ts': 'export const db = 1;\n',
  'src/app/context.ts': 'export interface Context { x: number }\nexport const context = 1;\n',
  'src/http/logging.ts': 'export const logging = 1;\n',
  'src/workers/loop.ts': 'export const loop = 1;\n',
  'src/config.ts': 'export interface Config { x: number }\nexport const config = 1;\n',
  'src/payments/provider.ts': 'export interface Outcome { x: number }\nexport const failureOf = 1;\n',
  'src/payments/simulator/paymentMethods.ts': 'export const METHODS = 1;\n',
  'src/domain/errors.ts': 'export const errors = 1;\n',
  'bench/lib/stats.ts': 'export const stats = 1;\n',
  'src/app/cycleB.ts': "import { a } from './cycleA.js';\nexport const b = () => a;\n",
  'packages/paysim/package.json': JSON.stringify({ name: '@boxoffice/paysim', type: 'module', exports: { '.': { types: './src/index.ts', default: './dist/index.js' } } }),
  'packages/paysim/src/index.ts': "export { simulator } from './server.js';\n",
  'packages/paysim/src/server.ts': 'export const simulator = 1;\n',
  'node_modules/pg/package.json': JSON.stringify({ name: 'pg', main: 'index.js' }),
  'node_modules/pg/index.js': 'module.exports = 1;\n',
  'node_modules/devonly/package.json': JSON.stringify({ name: 'devonly', main: 'index.js' }),
  'node_modules/devonly/index.js': 'module.exports = 1;\n',
  'package.json': JSON.stringify({ name: 'planted', type: 'module', dependencies: { pg: '1.0.0', '@boxoffice/paysim': '0.1.0' }, devDependencies: { devonly: '1.0.0' } }),
  'tsconfig.test.json': readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'),
};

/** One planted violation (or more) per rule: [rule, importing module, its text, the module it must be caught importing]. */
const PLANTED: [rule: string, from: string, text: string, to: string][] = [
  ['domain-is-pure', 'src/domain/plantedDb.ts', "import { db } from '../db/client.js';\nexport const x = db;\n", 'src/db/client.ts'],
  ['domain-is-pure', 'src/domain/plantedIo.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", 'fs'],
  ['domain-is-pure', 'src/domain/plantedPg.ts', "import pg from 'pg';\nexport const x = pg;\n", 'node_modules/pg/index.js'],
  ['domain-reads-no-config', 'src/domain/plantedConfig.ts', "import { config } from '../config.js';\nexport const x = config;\n", 'src/config.ts'],
  ['http-not-db', 'src/http/planted.ts', "import { db } from '../db/client.js';\nexport const x = db;\n", 'src/db/client.ts'],
  ['app-not-http', 'src/app/planted.ts', "import { logging } from '../http/logging.js';\nexport const x = logging;\n", 'src/http/logging.ts'],
  ['db-not-above', 'src/db/planted.ts', "import { context } from '../app/context.js';\nexport const x = context;\n", 'src/app/context.ts'],
  // Naming a type is depending on it.
  ['waiting-room-not-app-or-db', 'src/waiting-room/planted.ts', "import type { Context } from '../app/context.js';\nexport type X = Context;\n", 'src/app/context.ts'],
  ['live-not-workers', 'src/live/planted.ts', "import { loop } from '../workers/loop.js';\nexport const x = loop;\n", 'src/workers/loop.ts'],
  ['payments-not-above', 'src/payments/planted.ts', "import { logging } from '../http/logging.js';\nexport const x = logging;\n", 'src/http/logging.ts'],
  ['payment-adapter-values-from-the-root', 'src/app/plantedPayments.ts', "import { failureOf } from '../payments/provider.js';\nexport const x = failureOf;\n", 'src/payments/provider.ts'],
  ['src-not-tools', 'src/http/plantedTool.ts', "import { METHODS } from '../payments/simulator/paymentMethods.js';\nexport const x = METHODS;\n", 'src/payments/simulator/paymentMethods.ts'],
  ['tools-not-service-internals', 'packages/rehearsal/src/planted.ts', "import { context } from '../../../src/app/context.js';\nexport const x = context;\n", 'src/app/context.ts'],
  ['package-entry-only', 'src/app/plantedPackage.ts', "import { simulator } from '../../packages/paysim/src/server.js';\nexport const x = simulator;\n", 'packages/paysim/src/server.ts'],
  ['packages-entry-only-between-packages', 'packages/rehearsal/src/plantedPackage.ts', "import { simulator } from '../../paysim/src/server.js';\nexport const x = simulator;\n", 'packages/paysim/src/server.ts'],
  ['src-not-bench-or-test', 'src/app/plantedBench.ts', "import { stats } from '../../bench/lib/stats.js';\nexport const x = stats;\n", 'bench/lib/stats.ts'],
  ['bench-public-api-only', 'bench/planted.ts', "import { db } from '../src/db/client.js';\nexport const x = db;\n", 'src/db/client.ts'],
  ['web-public-api-only', 'web/src/planted.ts', "import { errors } from '../../src/domain/errors.js';\nexport const x = errors;\n", 'src/domain/errors.ts'],
  ['src-no-dev-dependencies', 'src/app/plantedDev.ts', "import devonly from 'devonly';\nexport const x = devonly;\n", 'node_modules/devonly/index.js'],
  ['no-circular', 'src/app/cycleA.ts', "import { b } from './cycleB.js';\nexport const a = () => b;\n", 'src/app/cycleB.ts'],
  ['no-orphans', 'src/app/orphan.ts', 'export const orphan = 1;\n', 'src/app/orphan.ts'],
  ['not-to-unresolvable', 'src/app/plantedTypo.ts', "import { x } from './no-such-module.js';\nexport const y = x;\n", './no-such-module.js'],
];

/** What each rule allows, planted beside the violations: none of these may be reported. */
const ALLOWED: [from: string, text: string][] = [
  ['src/domain/allowedConfigType.ts', "import type { Config } from '../config.js';\nexport type X = Config;\n"],
  ['src/app/allowedPaymentsType.ts', "import type { Outcome } from '../payments/provider.js';\nexport type X = Outcome;\n"],
  ['src/app/allowedDb.ts', "import { db } from '../db/client.js';\nexport const x = db;\n"],
  ['src/http/allowedApp.ts', "import { context } from '../app/context.js';\nexport const x = context;\n"],
  ['bench/allowedPackage.ts', "import { simulator } from '@boxoffice/paysim';\nexport const x = simulator;\n"],
  ['packages/rehearsal/src/allowedPackage.ts', "import { simulator } from '@boxoffice/paysim';\nimport { own } from './own.js';\nexport const x = [simulator, own];\n"],
  ['packages/rehearsal/src/own.ts', 'export const own = 1;\n'],
  // A cycle closed by a type-only import: nothing loads in a circle.
  ['src/app/typeCycleA.ts', "import { b } from './typeCycleB.js';\nexport interface A { b: typeof b }\n"],
  ['src/app/typeCycleB.ts', "import type { A } from './typeCycleA.js';\nexport const b = (a: A) => a;\n"],
];

interface Violation { from: string; to: string; rule: { name: string } }

let dir = '';
let violations: Violation[] = [];
let lint: { code: number; stdout: string } = { code: 0, stdout: '' };

/** depcruise as `npm run lint` runs it, in the planted tree, with more `args`. */
function depcruise(...args: string[]): Promise<{ code: number; stdout: string }> {
  const cli = [DEPCRUISE, CRUISED, '--config', CONFIG, ...args];
  return run(process.execPath, cli, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxoffice-boundaries-'));
  for (const [path, text] of [...Object.entries(TARGETS), ...PLANTED.map(([, from, text]) => [from, text] as const), ...ALLOWED]) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(join(dir, 'node_modules', '@boxoffice'), { recursive: true });
  symlinkSync(join(dir, 'packages', 'paysim'), join(dir, 'node_modules', '@boxoffice', 'paysim'));
  // Its exit status, and (the same check, as JSON) what it found.
  const [text, json] = await Promise.all([depcruise(), depcruise('--output-type', 'json')]);
  lint = text;
  violations = (JSON.parse(json.stdout) as { summary: { violations: Violation[] } }).summary.violations;
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm test', () => {
  it('runs the layering check and the linter first', () => {
    expect(scripts.test).toMatch(/^npm run lint && /);
    expect(scripts.lint).toBe(`depcruise '${CRUISED}' --config .dependency-cruiser.cjs && eslint .`);
  });
});

describe('the layering check', () => {
  it('fails on the planted tree, naming each broken rule', () => {
    expect(lint.code, lint.stdout).not.toBe(0);
    for (const rule of ruleNames) expect(lint.stdout).toContain(`error ${rule}: `);
  });

  it('plants a violation of every rule in .dependency-cruiser.cjs', () => {
    expect(new Set(PLANTED.map(([rule]) => rule))).toEqual(new Set(ruleNames));
  });

  it.each(PLANTED)('%s: catches %s', (rule, from, _text, to) => {
    const found = violations.filter((v) => v.rule.name === rule && v.from === from);
    expect(found.map((v) => v.to), JSON.stringify(violations.filter((v) => v.from === from))).toContain(to);
  });

  it('reports nothing a rule allows (type-only imports and cycles, a package by its entry, a layer below)', () => {
    const allowed = new Set(ALLOWED.map(([from]) => from));
    expect(violations.filter((v) => allowed.has(v.from) && v.rule.name !== 'no-orphans')).toEqual([]);
  });
});

describe('the linter', () => {
  const HOME = 'src/app/holdTally.ts';
  const real = readFileSync(join(ROOT, HOME), 'utf8');
  const withImport = real.replace("import { addHoldCounts, type HoldCounts } from '../db/stats.js';", "import { addHoldCounts, HoldCounts } from '../db/stats.js';");
  const DB_HOME = 'src/db/stats.ts';
  /** Each case: a text linted as if it were the file at `path` (which must exist: typed rules need it in the project). */
  const CASES: Record<string, { path: string; text: string }> = {
    real: { path: HOME, text: real },
    sqlString: { path: HOME, text: `${real}\nexport const planted = 'select hall_id from shows where id = $1';\n` },
    sqlTemplate: { path: HOME, text: `${real}\nexport const planted = (id: string) => \`\n  update show_stats set holds_created = 0 where show_id = '\${id}'\`;\n` },
    sqlDelete: { path: HOME, text: `${real}\nexport const planted = 'delete from holds where id = $1';\n` },
    // The statements this rule was written for (issue #24), each once outside src/db/.
    sqlSelect1: { path: HOME, text: `${real}\nexport const planted = \`select 1\`;\n` },
    sqlSecrets: { path: HOME, text: `${real}\nexport const planted = \`update secrets set value = $1 where name = 'ticket_signing_jwk' and value = ''\`;\n` },
    sqlClock: { path: HOME, text: `${real}\nexport const planted = \`select (((bo_now() at time zone $1)::date + $2::int) + $3::time) at time zone $1 as at\`;\n` },
    words: { path: HOME, text: `${real}\nexport const words = ['select a seat', 'update the map', 'deleted'];\n` },
    sqlInDb: { path: DB_HOME, text: `${readFileSync(join(ROOT, DB_HOME), 'utf8')}\nexport const planted = 'select hall_id from shows where id = $1';\n` },
    floating: { path: HOME, text: `${real}\nexport function planted(t: HoldTally, db: Queryable): void {\n  t.flush(db);\n}\n` },
    misused: { path: HOME, text: `${real}\nexport function planted(t: HoldTally, db: Queryable): void {\n  ['a'].forEach(async () => { await t.flush(db); });\n}\n` },
    notThenable: { path: HOME, text: `${real}\nexport async function planted(t: HoldTally): Promise<void> {\n  await t.count('s', 'created');\n}\n` },
    unusedAndTypeImport: { path: HOME, text: `${withImport}\nexport function planted(): void {\n  const unused = 1;\n}\n` },
  };
  // Linted in a process of its own, as `npm run lint` lints. With CI=true (as CI runs)
  // typescript-eslint assumes a single run over files on disk and types the file as it
  // is on disk, not the text given here: the planted code then has no types, and the two
  // promise rules found nothing. TSESTREE_SINGLE_RUN=false turns that inference off.
  const LINTER = `
    import { ESLint } from 'eslint';
    const cases = JSON.parse(await new Response(process.stdin).text());
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = {};
    for (const [name, { path, text }] of Object.entries(cases)) {
      const [result] = await eslint.lintText(text, { filePath: path });
      out[name] = result.messages.map((m) => m.ruleId ?? m.message);
    }
    process.stdout.write(JSON.stringify(out));`;
  let found: Record<string, string[]> = {};
  beforeAll(async () => {
    const cases = Object.fromEntries(Object.entries(CASES).map(([k, c]) => [k, { path: join(ROOT, c.path), text: c.text }]));
    const child = execFile(process.execPath, ['--input-type=module', '-e', LINTER], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, TSESTREE_SINGLE_RUN: 'false' } });
    const output = new Promise<string>((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
      child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`the linter exited ${code}: ${stderr}`))));
    });
    child.stdin!.end(JSON.stringify(cases));
    found = JSON.parse(await output) as Record<string, string[]>;
  }, 180_000);

  it('passes the real file it plants into', () => {
    expect(found.real).toEqual([]);
  });

  it('catches SQL outside src/db/, in a string and in a template', () => {
    for (const name of ['sqlString', 'sqlTemplate', 'sqlDelete', 'sqlSelect1', 'sqlSecrets', 'sqlClock']) expect(found[name], name).toEqual(['no-restricted-syntax']);
    // Words that only look like SQL's are not.
    expect(found.words).toEqual([]);
  });

  it('allows SQL in src/db/', () => {
    expect(found.sqlInDb).toEqual([]);
  });

  it('catches a promise nobody waits for, or handles', () => {
    expect(found.floating).toEqual(['@typescript-eslint/no-floating-promises']);
  });

  it('catches a promise where a callback returns nothing', () => {
    expect(found.misused).toEqual(['@typescript-eslint/no-misused-promises']);
  });

  it('catches awaiting what is not a promise', () => {
    expect(found.notThenable).toEqual(['@typescript-eslint/await-thenable']);
  });

  it('catches an unused variable and an import used only as a type', () => {
    expect(withImport).not.toBe(real);
    expect(found.unusedAndTypeImport).toEqual(['@typescript-eslint/consistent-type-imports', '@typescript-eslint/no-unused-vars']);
  });
});
