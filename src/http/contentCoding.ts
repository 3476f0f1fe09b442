// Which content coding to answer with, from the request's Accept-Encoding
// (RFC 9110 §12.5.3): the highest q-value among those we offer wins, br before
// gzip on a tie (it is smaller); no header, or nothing we offer, is identity.
import type { ContentCoding } from '../app/encodedBody.js';

/** The q-value of each coding the header names (`x-gzip` is gzip); a malformed q counts as 0. */
function qValues(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';');
    const coding = name!.trim().toLowerCase();
    if (!coding) continue;
    let value = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k?.trim().toLowerCase() !== 'q') continue;
      const n = Number(v?.trim());
      value = v !== undefined && /^\s*(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/.test(v) && Number.isFinite(n) ? n : 0;
    }
    const key = coding === 'x-gzip' ? 'gzip' : coding;
    // A coding named twice keeps its best q.
    q.set(key, Math.max(q.get(key) ?? 0, value));
  }
  return q;
}

// Browsers send one of a handful of exact strings: each is parsed once.
const chosen = new Map<string, ContentCoding>();
const MAX_REMEMBERED = 256;

export function chooseCoding(acceptEncoding: string | string[] | undefined): ContentCoding {
  if (acceptEncoding === undefined) return 'identity';
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  let coding = chosen.get(header);
  if (coding === undefined) {
    coding = fromHeader(header);
    if (chosen.size >= MAX_REMEMBERED) chosen.clear();
    chosen.set(header, coding);
  }
  return coding;
}

/** gzip when the header accepts it and does not prefer identity; else identity (the seat map stream offers only gzip: src/live/gzipEvents.ts). */
export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  const q = qValues(Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding);
  const gzip = q.get('gzip') ?? q.get('*') ?? 0;
  return gzip > 0 && gzip >= (q.get('identity') ?? 0);
}

function fromHeader(header: string): ContentCoding {
  const q = qValues(header);
  const star = q.get('*');
  const of = (c: string) => q.get(c) ?? star ?? 0;
  const br = of('br');
  const gzip = of('gzip');
  // Identity is acceptable unless excluded; unnamed, it yields to any coding the client asked for.
  const identity = q.get('identity') ?? 0;
  const best = Math.max(br, gzip);
  if (best === 0 || identity > best) return 'identity';
  return br >= gzip ? 'br' : 'gzip';
}
