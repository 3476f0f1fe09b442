// The process's open file limit, as it stands once Node has started: Node raises
// the soft RLIMIT_NOFILE to the hard one itself at start (where allowed) and has no
// API to read or set it, so the limit is read from /proc on Linux. Raising the hard
// limit is the operator's: `ulimit -n`, or systemd's LimitNOFILE=.
import { readFileSync } from 'node:fs';
import { parseOpenFileLimit, type OpenFileLimit } from './streamCapacity.js';

/** The limit, or null where /proc/self/limits cannot be read (not Linux). */
export function readOpenFileLimit(): OpenFileLimit | null {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return null;
  }
}
