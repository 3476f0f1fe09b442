// What the service's logs may say about a request. Capability keys (the `key` of
// a QR URL, which lets anyone print the ticket) and bearer tokens are secrets:
// logs are shipped, shared and kept far longer than a ticket lives, so the
// secrets are cut out where a request becomes a log line, whatever the level.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { requestLogger } from './requestLog.js';

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

/**
 * The one logger of a process (boxoffice, or the payment simulator under its own
 * name): the options above, and on a terminal pino-pretty in this thread, one
 * line per entry; elsewhere JSON lines, for machines. `stream` (tests) wins.
 */
export function createLogger(s: { name: string; level?: string; pretty?: boolean; stream?: DestinationStream }): Logger {
  const { pretty: onTerminal, stream, ...given } = s;
  return pino(loggerOptions(given) as LoggerOptions, stream ?? (onTerminal ? prettyLines() : undefined));
}

/**
 * A logger that says nothing, for a service opened without one. It gets a sink, not
 * pino's default (stdout, asynchronous), which would add a process 'exit' listener
 * to flush it that stays for as long as the logger is not collected.
 */
export const silentLogger = (): Logger => pino({ level: 'silent' }, { write() {} });

function prettyLines(): DestinationStream {
  return pretty({
    colorize: true,
    singleLine: true,
    // Synchronous, so the lines before a process.exit are not lost.
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The request's own fields are in its message (below); the JSON lines keep them as fields.
    ignore: 'pid,hostname,req,res,responseTime',
  });
}

/** A logger given ready-made (main.ts) rather than as options (tests pass `{ level, stream }`). */
export function isLogger(l: unknown): l is Logger {
  return typeof l === 'object' && l !== null && typeof (l as Logger).child === 'function' && typeof (l as Logger).info === 'function';
}

const shed = new WeakSet<FastifyRequest>();

/**
 * Marks a request the purchase-path limit refused: that 503 is the limit doing its
 * job, thousands a second in a rush, so it is logged like any answer (info), not as
 * a warning; operators watch it as boxoffice_purchase_rejections_total.
 */
export function markShed(request: FastifyRequest): void {
  shed.add(request);
}

/**
 * At most one line per request, written when the answer has gone: method,
 * redacted URL, status, time and client in the message, the same as fields in
 * JSON. `quiet` requests (probes, scrapes) at debug; 5xx at error (503, a
 * refusal to try again later, at warn; a shed purchase at info); everything else at info.
 */
export class RequestLines extends LogController {
  constructor(private readonly quiet: (path: string) => boolean) {
    super({ disableRequestLogging: false });
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override defaultErrorLog(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    // The line is built only when it is written (at LOG_LEVEL=warn, an answered map read writes none).
    const log = request.log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    const writes = (l: string) => !log.isLevelEnabled || log.isLevelEnabled(l);
    let level: 'debug' | 'info' | 'warn' | 'error';
    if (status === 503) level = shed.has(request) ? 'info' : 'warn';
    else if (status >= 500 || error) level = 'error';
    // Debug is below info: with info off, neither is written.
    else if (!writes('info')) return;
    else level = this.quiet(request.url.split('?')[0]!) || request.raw.socket?.remoteAddress === WARMUP_ADDRESS ? 'debug' : 'info';
    if (!writes(level)) return;
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log[level](
      { req: request, res: reply, responseTime: ms, ...(error ? { err: error } : {}) },
      `${request.method} ${redactUrl(request.url)} ${status} ${ms} ms ${request.ip}`,
    );
  }
}

/**
 * The client address of the start's warm-up reads (app.inject, src/app/warmup.ts):
 * TEST-NET-1, which no real client connects from. Their lines are at debug, and they
 * count against no real client's rate limit.
 */
export const WARMUP_ADDRESS = '192.0.2.0';

/** What the service logs at debug only: probes and metric scrapes, every few seconds for ever. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
export const isProbe = (path: string) => PROBES.has(path);

/**
 * Fastify's logging for a logger: that logger, one line per request (`quiet` ones
 * at debug), each request's child logger made only when it writes; or none at all.
 */
export function appLogging(log: Logger | null, quiet: (path: string) => boolean = isProbe) {
  return log
    ? { loggerInstance: log as FastifyBaseLogger, logController: new RequestLines(quiet), childLoggerFactory: requestLogger }
    : { logger: false as const };
}

/** A logger given ready-made, one made from options under `name`, or none. */
export function loggerFrom(name: string, given: boolean | object | Logger | undefined): Logger | null {
  if (!given) return null;
  if (isLogger(given)) return given;
  return createLogger({ name, ...(given === true ? {} : given) });
}
