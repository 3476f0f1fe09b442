import type { ComponentChildren } from 'preact';

/** Any address with nothing at it; a page whose thing does not exist says which (`heading`, `children`). */
export function NotFound({ heading = 'Page not found', children }: { heading?: string; children?: ComponentChildren }) {
  return (
    <section>
      <h1>{heading}</h1>
      {children ?? <p>There is nothing at this address. <a href="/">See what's on</a>.</p>}
    </section>
  );
}
