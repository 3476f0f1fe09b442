// The kernel's count of connections dropped because a listen queue was full
// (TcpExt ListenOverflows in /proc/net/netstat, the whole machine): each such drop
// costs its client a SYN retry a second or more later. null where it cannot be read.
import { readFileSync } from 'node:fs';

export function listenOverflows(): number | null {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    for (let i = 0; i + 1 < lines.length; i++) {
      if (!lines[i]!.startsWith('TcpExt:') || !lines[i + 1]!.startsWith('TcpExt:')) continue;
      const names = lines[i]!.split(/\s+/);
      const values = lines[i + 1]!.split(/\s+/);
      const at = names.indexOf('ListenOverflows');
      return at < 0 ? null : Number(values[at]);
    }
  } catch {
    // not Linux, or /proc not mounted
  }
  return null;
}
