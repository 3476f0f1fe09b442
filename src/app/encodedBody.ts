// One answer body in every content coding we offer, each compressed at most once:
// on the first request that asks for it, off the event loop (zlib's thread pool),
// then kept with the body for as long as the body is cached. A stadium's map is
// about 6 MB: compressing it per request would cost the CPU of the whole instance.
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** How a body is sent: as it is, or compressed (the Content-Encoding). */
export type ContentCoding = 'br' | 'gzip' | 'identity';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Levels chosen on a stadium map (about 6 MB): brotli 5 comes close to brotli 9's
 * size in a fraction of its time, and is clearly smaller than 4; gzip 4 is as small
 * as gzip 6 in less time. Paid once per cache refresh, not per request.
 */
const BROTLI_QUALITY = 5;
export const GZIP_LEVEL = 4;
/** Below this a body goes out as it is: the saving would not pay for the work. */
export const MIN_COMPRESSED_BYTES = 256;

export interface Representation {
  coding: ContentCoding;
  etag: string;
  /** The bytes when they are built already (no need to wait). */
  ready: Buffer | undefined;
  bytes(): Promise<Buffer>;
}

/** `"x"` → `"x-br"`: each coding is its own representation with its own strong tag. */
function tagFor(etag: string, coding: ContentCoding): string {
  return coding === 'identity' ? etag : `${etag.slice(0, -1)}-${coding}"`;
}

function compress(bytes: Buffer, coding: 'br' | 'gzip'): Promise<Buffer> {
  if (coding === 'gzip') return gzip(bytes, { level: GZIP_LEVEL });
  return brotli(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

export class EncodedBody {
  private readonly compressed = new Map<'br' | 'gzip', Promise<Buffer>>();
  /** Representations whose bytes are built, made once: the hot path allocates nothing. */
  private readonly built = new Map<ContentCoding, Representation>();
  /** Every representation's tag: If-None-Match with any of them is a match. */
  readonly tags: readonly string[];

  /** `etag` must be a strong tag, `"…"`. */
  constructor(readonly bytes: Buffer, readonly etag: string) {
    this.tags = [etag, tagFor(etag, 'br'), tagFor(etag, 'gzip')];
    this.built.set('identity', { coding: 'identity', etag, ready: bytes, bytes: () => Promise.resolve(bytes) });
  }

  /** The representation to send for `coding`: identity for a body too small to be worth compressing. */
  in(coding: ContentCoding): Representation {
    if (coding === 'identity' || this.bytes.length < MIN_COMPRESSED_BYTES) return this.built.get('identity')!;
    return this.built.get(coding) ?? { coding, etag: tagFor(this.etag, coding), ready: undefined, bytes: () => this.encoded(coding) };
  }

  private encoded(coding: 'br' | 'gzip'): Promise<Buffer> {
    let done = this.compressed.get(coding);
    if (!done) {
      done = compress(this.bytes, coding);
      this.compressed.set(coding, done);
      // A failure is not kept: the next request tries again.
      done.then(
        (b) => this.built.set(coding, { coding, etag: tagFor(this.etag, coding), ready: b, bytes: () => Promise.resolve(b) }),
        () => this.compressed.delete(coding),
      );
    }
    return done;
  }
}
