// The stream is sent with HTTP/1.1 chunked framing, as node:http would, but each
// event's chunk (size line, bytes, CRLF) is framed once per event and written to
// the socket as one buffer: a delta fanned out to 10,000 viewers is one framed
// Buffer and 10,000 socket writes, not 40,000 writes through ServerResponse
// (which frames every write itself: size, CRLF, data, CRLF) with a UTF-8 encoding each.
const CRLF = Buffer.from('\r\n');

/** Event bytes → the same bytes as one HTTP/1.1 chunk; each event buffer is framed once, whatever the number of viewers. */
const chunks = new WeakMap<Buffer, Buffer>();

export function chunkOf(event: Buffer): Buffer {
  let chunk = chunks.get(event);
  if (!chunk) {
    chunk = Buffer.concat([Buffer.from(`${event.length.toString(16)}\r\n`, 'latin1'), event, CRLF]);
    chunks.set(event, chunk);
  }
  return chunk;
}
