// The second table both benches print: where the CPU went during the measured
// windows, per answer. On a shared 2-core machine this is steadier than req/s:
// it does not move when someone else's tests take a core for a while.
import os from 'node:os';
import { cpuPerAnswer } from './load.js';
import { fixed, table } from './stats.js';

export interface CpuRow {
  c: number;
  label: string;
  target: string;
  answers: number;
  seconds: number;
  /** Meter name → CPU seconds in the window: generator, server, database, machine. */
  cpu: Record<string, number | null>;
}

export function cpuTable(rows: CpuRow[], serverTitle = 'server'): string {
  const cores = os.cpus().length;
  const labelled = rows.some((r) => r.label);
  const drop = (cells: string[]) => (labelled ? cells : cells.filter((_, i) => i !== 1));
  return table(
    drop(['C', 'answer', 'target', `${serverTitle} µs`, 'postgres µs', 'load gen µs', 'everything else µs', 'machine busy']),
    rows.map((r) => {
      const { generator = null, server = null, database = null, machine = null } = r.cpu;
      const ours = [generator, server, database].reduce<number | null>((a, v) => (a === null || v === null ? a : a + v), 0);
      const rest = machine === null || ours === null ? null : Math.max(0, machine - ours);
      const per = (v: number | null | undefined) => fixed(cpuPerAnswer(v ?? null, r.answers), 0);
      return drop([String(r.c), r.label, r.target, per(server), per(database), per(generator), per(rest),
        machine === null ? '-' : `${fixed((100 * machine) / (r.seconds * cores), 0)}%`]);
    }),
  );
}
