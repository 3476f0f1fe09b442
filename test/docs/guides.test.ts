// The guides in docs/ are checked by running them: every ```sh block of a guide,
// in order, in one bash process (variables carry over, as in a reader's terminal),
// against a started service with the payment simulator. A wrong command fails here.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalog } from '../../src/app/demoCatalog.js';
import { ADMIN, type TestService } from '../support/service.js';
import { closeService, startService } from '../bookings/helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The guide's shell blocks, in order. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** How many blocks ran to their end. */
  finished: number;
}

/** Runs the blocks as one script under `set -euo pipefail`, a marker echoed after each. */
function runBlocks(blocks: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  const script = ['set -euo pipefail', ...blocks.map((b, i) => `${b}\necho "::guide-block ${i + 1} done"`)].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, finished: (stdout.match(/^::guide-block \d+ done$/gm) ?? []).length }));
  });
}

/** Runs a guide and checks that every block finished; the combined output. */
async function followGuide(file: string): Promise<string> {
  const blocks = shellBlocks(await readFile(path.join(ROOT, file), 'utf8'));
  expect(blocks.length, `${file} has shell blocks`).toBeGreaterThan(5);
  const run = await runBlocks(blocks, { BASE: t.baseUrl, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }, work);
  const failed = blocks[run.finished];
  expect(run.code, `${file}: block ${run.finished + 1} failed:\n${failed ?? ''}\n--- stderr\n${run.stderr}\n--- stdout\n${run.stdout.slice(-3000)}`).toBe(0);
  expect(run.finished).toBe(blocks.length);
  return run.stdout;
}

let t: TestService;
let work: string;

describe('the guides in docs/, followed command by command', () => {
  beforeAll(async () => {
    t = await startService({ payments: {} });
    // What a first `npm start` makes: the buyer guide shops in the demo catalog.
    await seedDemoCatalog(t.service.ctx);
    work = await mkdtemp(path.join(tmpdir(), 'boxoffice-guides-'));
  });
  afterAll(async () => {
    await closeService(t);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('finds the shell blocks of a guide', () => {
    expect(shellBlocks('a\n```sh\necho 1\n```\ntext\n```json\n{}\n```\n```sh\necho 2\necho 3\n```\n')).toEqual(['echo 1\n', 'echo 2\necho 3\n']);
  });

  it('README links both guides and nothing outside the repository', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('](docs/guide-buyer.md)');
    expect(readme).toContain('](docs/guide-operator.md)');
    expect(readme).not.toMatch(/\]\(\.\.\//);
  });

  it('docs/guide-buyer.md: sign up, find, hold, pay, tickets and QR, cancel', async () => {
    const out = await followGuide('docs/guide-buyer.md');
    expect(out).toMatch(/"status": "failed",\s*"failure": \{\s*"code": "card_declined"/);
    expect(out).toMatch(/"status": "confirmed"/);
    expect(out).toMatch(/saved ticket\.png \(\d+ bytes\)/);
    expect(out).toMatch(/"status": "cancelled"/);
    expect(out).toContain('QR after cancelling: 410');
    expect(out).toContain('through the waiting room: {"status":"confirmed","seats":["101-A7","101-A8"]}');
    const png = await readFile(path.join(work, 'ticket.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  }, 120_000);

  it('docs/guide-operator.md: venue, hall, event, show, lists, staff, check-in, stats', async () => {
    const out = await followGuide('docs/guide-operator.md');
    expect(out).toContain('"name": "Riverside Cinema"');
    expect(out).toContain('"seat_count": 32');
    expect(out).toContain('"title": "The Harbour at Night"');
    expect(out).toContain('"role": "staff"');
    expect(out).toMatch(/"checked_in_at": "\d{4}-/);
    expect(out).toContain('"double_sold": 0');
    expect(out).toContain('"per_user_limit": 10');
  }, 120_000);
});
