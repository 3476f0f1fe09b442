// CPU used over a window, per process (from /proc; null elsewhere): read the meters
// at the window's start and end, and divide by what the window did. On a machine
// whose cores are all busy, an operation's latency at a fixed concurrency follows
// the CPU it costs (Little's law), so this says where a ratio between two figures
// comes from.
import { readdirSync, readFileSync } from 'node:fs';
import type { CpuMeter } from './load.js';
import { machineBusySeconds, processCpuSeconds } from './child.js';

/** Process ids whose parent is `pid` (from /proc/<id>/stat); empty where /proc is missing. */
export function childPids(pid: number): number[] {
  let ids: string[];
  try {
    ids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  return ids.flatMap((id) => {
    try {
      const stat = readFileSync(`/proc/${id}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid === pid ? [Number(id)] : [];
    } catch {
      return []; // ended meanwhile
    }
  });
}

/** This process's own CPU (user + system), in seconds. */
export const ownCpu = (name: string): CpuMeter => ({ name, read: () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; } });

/** The whole machine's busy CPU (every process, every core). */
export const machineCpu: CpuMeter = { name: 'machine', read: machineBusySeconds };

export type CpuReading = (number | null)[];

/** Every meter read at once; a meter that fails reads null. */
export function readMeters(meters: CpuMeter[]): Promise<CpuReading> {
  return Promise.all(meters.map(async (m) => { try { return await m.read(); } catch { return null; } }));
}

/** The CPU seconds of several processes together (e.g. a service's children); null when none is known. */
export const processesCpu = (name: string, pids: number[]): CpuMeter => ({
  name,
  read: () => (pids.length ? pids.reduce((t, pid) => t + (processCpuSeconds(pid) ?? 0), 0) : null),
});

export class CpuWindow {
  constructor(readonly meters: CpuMeter[]) {}

  read(): Promise<CpuReading> {
    return readMeters(this.meters);
  }

  /** Milliseconds of CPU per operation between two readings, by meter name (null when a reading is missing). */
  perOperation(from: CpuReading, to: CpuReading, operations: number): Map<string, number | null> {
    return new Map(this.meters.map((m, i) => {
      const a = from[i];
      const b = to[i];
      return [m.name, a == null || b == null || operations === 0 ? null : (1000 * (b - a)) / operations];
    }));
  }
}
