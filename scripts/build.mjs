// `npm run build` (and the build before `npm start`): rebuilds only what changed.
// TypeScript's build mode decides for the service and the packages: `tsc -b` keeps in
// each project's .tsbuildinfo what it was built from and skips a project whose
// inputs have not changed (web/ is type-checked the same way). Vite keeps no such
// record, so this script does: a digest of every file under web/ (path, size,
// modification time) and of the lock file, written once the bundle is built; while
// both match, Vite does not run. Plain JavaScript: it runs before anything is built.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB_BUNDLE = path.join(ROOT, 'dist', 'web', 'index.html');
/** Beside dist/web, not in it: the service serves dist/web, and Vite empties it. */
const WEB_DIGEST = path.join(ROOT, 'dist', 'web.inputs');

function node(args) {
  try {
    execFileSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  } catch (err) {
    // The tool has said what failed.
    process.exit(typeof err.status === 'number' && err.status !== 0 ? err.status : 1);
  }
}

/** Every file under `dir` as "path size mtime", sorted. */
function listing(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') listing(p, out);
    } else {
      const s = statSync(p);
      out.push(`${path.relative(ROOT, p)} ${s.size} ${s.mtimeMs}`);
    }
  }
  return out;
}

function webDigest() {
  const lock = statSync(path.join(ROOT, 'package-lock.json'));
  const files = [...listing(path.join(ROOT, 'web')), `package-lock.json ${lock.size} ${lock.mtimeMs}`];
  return createHash('sha256').update(files.sort().join('\n')).digest('hex');
}

node([path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/paysim', 'packages/rehearsal', 'tsconfig.json', 'web/tsconfig.json']);
const digest = webDigest();
const built = existsSync(WEB_BUNDLE) && existsSync(WEB_DIGEST) && readFileSync(WEB_DIGEST, 'utf8') === digest;
if (!built) {
  // Gone while Vite runs: a build cut off midway is never taken for a finished one.
  rmSync(WEB_DIGEST, { force: true });
  node([path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'web', '--logLevel', 'warn']);
  writeFileSync(WEB_DIGEST, digest);
}
