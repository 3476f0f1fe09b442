// The seat map stream in gzip (Content-Encoding: gzip on text/event-stream), with
// the bytes shared by every viewer as the uncompressed ones are. Each event is
// compressed once, alone (a fresh compressor, so nothing refers back into another
// event) and ended by a sync flush (byte-aligned, not the final block): any run of
// such pieces after one gzip header is a valid deflate stream, whichever event a
// viewer joined at. The gzip member is never finished: the stream ends by the
// connection closing, as the uncompressed one does, and every event has been
// decoded by then. A stadium's snapshot is compressed off the event loop.
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** The level the map's own answers are compressed at (src/app/encodedBody.ts): level 6 is no smaller, in twice the time. */
const GZIP_LEVEL = 4;

/** ID1 ID2, CM deflate, no flags, no mtime, XFL 0, OS unix. */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]);

const OPTIONS: zlib.ZlibOptions = { level: GZIP_LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const deflateRaw = promisify(zlib.deflateRaw);

/** Event bytes → their deflate piece, made once whatever the number of viewers. */
const pieces = new WeakMap<Buffer, Buffer>();
const making = new WeakMap<Buffer, Promise<void>>();

/** The event's deflate piece (compressed now, on the event loop, unless made ahead). */
export function gzipped(event: Buffer): Buffer {
  let piece = pieces.get(event);
  if (!piece) {
    piece = zlib.deflateRawSync(event, OPTIONS);
    pieces.set(event, piece);
  }
  return piece;
}

/** Compresses the event in zlib's thread pool, once however many viewers wait for it. */
export function gzipAhead(event: Buffer): Promise<void> {
  if (pieces.has(event)) return Promise.resolve();
  let done = making.get(event);
  if (!done) {
    done = deflateRaw(event, OPTIONS).then((piece) => { pieces.set(event, piece); }, () => {});
    making.set(event, done);
  }
  return done;
}
