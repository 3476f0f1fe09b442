// PGlite is one process's database: two processes opening the same folder would
// corrupt it. A lock file naming the owner's pid keeps the second one out (say,
// `npm run admin` while `npm start` runs); a lock left by a dead process is taken over.
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the folder's lock or throws naming the process that has it; returns the release. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, 'boxoffice.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new Error(`the embedded database under ${dataDir} is in use by process ${owner}; stop it first, or use DATABASE_URL`);
      }
      rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
