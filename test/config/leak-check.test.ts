// The check after each test file (test/support/leakCheck.ts) must fail a file that
// leaves a timer, a server or a process listener behind, name what it left, and pass
// a file that closes what it opened. Planted files run in a vitest of their own
// (a child process, one worker kept across files as in vitest.config.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { census, leftBehind } from '../support/leakCheck.js';

const ROOT = path.join(import.meta.dirname, '../..');

const PLANTED: Record<string, string> = {
  'interval.test.ts': "it('leaves an interval', () => { setInterval(() => {}, 60_000); });",
  'server.test.ts': "import http from 'node:http';\nit('leaves a server listening', async () => { await new Promise((r) => http.createServer().listen(0, '127.0.0.1', () => r(null))); });",
  'listener.test.ts': "it('leaves an exit listener', () => { process.on('exit', function plantedExitListener() {}); });",
  'clean.test.ts': [
    "import http from 'node:http';",
    'let server: http.Server;',
    "beforeAll(async () => { server = http.createServer(); await new Promise((r) => server.listen(0, '127.0.0.1', () => r(null))); });",
    'afterAll(async () => { await new Promise((r) => server.close(r)); });',
    "it('closes what it opened', () => { const t = setInterval(() => {}, 60_000); clearInterval(t); const l = () => {}; process.on('SIGUSR2', l); process.off('SIGUSR2', l); });",
  ].join('\n'),
};

interface FileResult { name: string; status: string; message: string }

let dir: string;
let results: FileResult[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'leak-check-'));
  for (const [name, text] of Object.entries(PLANTED)) await writeFile(path.join(dir, name), text);
  await writeFile(path.join(dir, 'vitest.config.mjs'), `export default { test: {
    root: ${JSON.stringify(dir)}, include: ['*.test.ts'], globals: true,
    setupFiles: [${JSON.stringify(path.join(ROOT, 'test/support/leakCheck.ts'))}],
    pool: 'forks', maxWorkers: 1, isolate: false, sequence: { shuffle: false },
  } };`);
  const out = path.join(dir, 'results.json');
  // Fails (exit code 1) by design: three of the four files leak.
  await promisify(execFile)('npx', ['vitest', 'run', '--config', path.join(dir, 'vitest.config.mjs'), '--reporter=json', `--outputFile=${out}`], { cwd: ROOT }).catch(() => {});
  const report = JSON.parse(await readFile(out, 'utf8')) as { testResults: { name: string; status: string; message: string }[] };
  results = report.testResults.map((r) => ({ name: path.basename(r.name), status: r.status, message: r.message }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the check after each test file', () => {
  it('fails a file that leaves an interval, a server or a process listener, naming it', () => {
    const of = (name: string) => results.find((r) => r.name === name)!;
    expect(of('interval.test.ts')).toMatchObject({ status: 'failed', message: expect.stringMatching(/left behind: 1 Timeout\b/) });
    expect(of('server.test.ts')).toMatchObject({ status: 'failed', message: expect.stringMatching(/left behind: 1 TCPServerWrap\b/) });
    expect(of('listener.test.ts')).toMatchObject({ status: 'failed', message: expect.stringMatching(/1 process 'exit' listener[\s\S]*plantedExitListener/) });
  });

  it('passes a file that closes what it opened', () => {
    expect(results.find((r) => r.name === 'clean.test.ts')).toMatchObject({ status: 'passed' });
  });

  it('counts by kind, and reports only what there is more of', () => {
    const before = new Map([['Timeout', 2], ["process 'exit' listener", 1]]);
    expect(leftBehind(before, new Map([['Timeout', 2], ["process 'exit' listener", 3], ['TCPSocketWrap', 1]]))).toEqual(["2 process 'exit' listener", '1 TCPSocketWrap']);
    expect(leftBehind(before, new Map([['Timeout', 1]]))).toEqual([]);
    expect(census().get("process 'exit' listener") ?? 0).toBe(process.listenerCount('exit'));
  });
});
