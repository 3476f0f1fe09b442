// Whether a show's sale has opened yet, by this browser's clock. At the opening the
// map opens by itself (no reload), and the show is read again: an operator may have
// moved the opening, and the service's word is what a hold is judged by.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api/client';
import type { Show } from './api/types';
import { saleOpensAt } from './saleTime';

/** setTimeout's longest delay (about 24.8 days); a later opening waits in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * The opening while it is ahead, else null. Renders again when it passes, and then
 * hands `reread` the show as the service now has it.
 */
export function useSaleOpening(show: Show | null, reread: (s: Show) => void): string | null {
  const [passes, setPasses] = useState(0);
  const opensAt = show?.sale_opens_at ?? null;
  useEffect(() => {
    const at = saleOpensAt(show);
    if (!show || at === null) return;
    const ms = Date.parse(at) - Date.now();
    const timer = setTimeout(() => {
      // The next render judges again; a long wait that is not over yet arms a new timer.
      setPasses((n) => n + 1);
      if (ms <= LONGEST_TIMER_MS) api.show(show.id).then(reread, () => {});
    }, Math.min(ms, LONGEST_TIMER_MS));
    return () => clearTimeout(timer);
  }, [show?.id, opensAt, passes]);
  return saleOpensAt(show);
}
