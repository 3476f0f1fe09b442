// Vitest global setup: the browser tests need the built web app (dist/web). Builds it
// when it is missing or older than any file under web/ (a fresh clone, an edited page).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEB = path.join(ROOT, 'web');
const BUILT = path.join(ROOT, 'dist', 'web', 'index.html');

function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export default async function setup(): Promise<void> {
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestUnder(WEB)) return;
  await build({ configFile: path.join(WEB, 'vite.config.ts'), logLevel: 'warn' });
}
