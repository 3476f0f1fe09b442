// If-None-Match (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly
// (a W/ prefix is ignored) with the tags of the current representations.

/** True when the header names one of `tags` (or is `*`): the answer is 304. */
export function noneMatchHits(header: string | undefined, tags: readonly string[]): boolean {
  if (!header) return false;
  if (tags.includes(header)) return true;
  if (header.trim() === '*') return true;
  const listed = header.match(/(?:W\/)?"[^"]*"/g);
  if (!listed) return false;
  return listed.some((t) => tags.includes(t.startsWith('W/') ? t.slice(2) : t));
}
