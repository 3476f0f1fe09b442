// What the service's logs may say about a request. Capability keys (the `key` of
// a QR URL, which lets anyone print the ticket) and bearer tokens are secrets:
// logs are shipped, shared and kept far longer than a ticket lives, so the
// secrets are cut out where a request becomes a log line, whatever the level.
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are secrets; names compared after decoding (`k%65y` is `key`). */
const SECRET_PARAMETERS = new Set(['key', 'token', 'access_token']);

const REDACTED = '[redacted]';

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).trim().toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The URL with the values of secret query parameters replaced; the path is kept. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return SECRET_PARAMETERS.has(decodedName(name)) ? `${name}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/** Fastify's request serializer, with the URL redacted and, as before, no headers at all. */
function req(request: FastifyRequest) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Headers a log line must never carry, should anything log a request's headers. */
const SECRET_HEADERS = ['authorization', 'cookie', 'admission-token', 'stripe-signature'];

/**
 * The logger options of the service: the caller's (level, stream…) with the
 * request serializer and the redaction that keep secrets out. Ours win.
 */
export function loggerOptions(logger: boolean | object | undefined): false | Record<string, unknown> {
  if (!logger) return false;
  const given = (logger === true ? {} : logger) as Record<string, unknown> & { serializers?: object; redact?: unknown };
  return {
    ...given,
    serializers: { ...given.serializers, req },
    redact: {
      paths: [
        ...SECRET_HEADERS.flatMap((h) => [`headers["${h}"]`, `req.headers["${h}"]`, `request.headers["${h}"]`]),
        'err.rawPacket',
      ],
      censor: REDACTED,
    },
  };
}
