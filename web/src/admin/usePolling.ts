// Calls `read` now and every `everyMs` after the previous call finished, while mounted.
import { useEffect, useRef } from 'preact/hooks';

export function usePolling(read: () => Promise<void>, everyMs: number, key: unknown): void {
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try { await latest.current(); } catch { /* the page shows the error; the next tick tries again */ }
      if (!stopped) timer = setTimeout(tick, everyMs);
    };
    void tick();
    return () => { stopped = true; clearTimeout(timer); };
  }, [everyMs, key]);
}
