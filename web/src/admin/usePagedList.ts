// An operators' list read a page at a time (`next_cursor`), with "load more" and reload.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client';

export interface PagedList<T> {
  items: T[] | null;
  error: string | null;
  more: boolean;
  loadMore(): void;
  reload(): void;
}

export function usePagedList<T>(fetchPage: (cursor?: string) => Promise<{ items: T[]; next_cursor: string | null }>): PagedList<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  const load = useCallback(async (from: string | undefined, append: boolean) => {
    try {
      const page = await fetchPage(from);
      setItems((old) => (append && old ? [...old, ...page.items] : page.items));
      setCursor(page.next_cursor);
      setError(null);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'The list could not be loaded.');
    }
  }, [fetchPage]);

  useEffect(() => { void load(undefined, false); }, [load, generation]);

  return {
    items,
    error,
    more: cursor !== null,
    loadMore: () => { if (cursor) void load(cursor, true); },
    reload: () => setGeneration((g) => g + 1),
  };
}
