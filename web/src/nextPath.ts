// Where to go after signing in: the `next` query parameter when it is a path on this
// site (starts with one `/`), else the home page. Never another origin.

export function safeNext(next: string | undefined | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin !== window.location.origin) return '/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}

/** The sign-in page's address that comes back to `path` afterwards. */
export const signInFor = (path: string): string => `/signin?next=${encodeURIComponent(path)}`;
