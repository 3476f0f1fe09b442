// Applies migrations/NNNN_*.sql in order, each once, each in its own transaction.
// An advisory lock lets several instances start at once against one database.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Database } from './client.js';

const MIGRATION_LOCK = 7_401_337;

export function migrationsDir(): string {
  // src/db or dist/src/db: walk up to the folder that holds migrations/.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = path.join(dir, 'migrations');
    try {
      readdirSync(candidate);
      return candidate;
    } catch {
      dir = path.dirname(dir);
    }
  }
  throw new Error('migrations/ folder not found');
}

export async function migrate(db: Database, log: (msg: string) => void = () => {}): Promise<string[]> {
  const dir = migrationsDir();
  const files = readdirSync(dir).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return db.transaction(async (tx) => {
    await tx.query("set local lock_timeout = '60s'");
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`create table if not exists schema_migrations (
      version text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await tx.query<{ version: string }>('select version from schema_migrations')).rows.map((r) => r.version));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      log(`applying migration ${file}`);
      await tx.script(readFileSync(path.join(dir, file), 'utf8'));
      await tx.query('insert into schema_migrations (version) values ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}
