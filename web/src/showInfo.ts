// Show details for bookings and checkout, fetched once per show id for this page load.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api/client';
import type { Show } from './api/types';

const cache = new Map<string, Promise<Show>>();

export function showInfo(id: string): Promise<Show> {
  let p = cache.get(id);
  if (!p) {
    p = api.show(id);
    cache.set(id, p);
    p.catch(() => cache.delete(id));
  }
  return p;
}

/** The show once known; null while loading or when it could not be loaded. */
export function useShowInfo(id: string | null | undefined): Show | null {
  const [show, setShow] = useState<Show | null>(null);
  useEffect(() => {
    if (!id) return;
    let live = true;
    showInfo(id).then((s) => { if (live) setShow(s); }, () => {});
    return () => { live = false; };
  }, [id]);
  return show;
}
