// The simulator's own logger, in the service's format: on a terminal pino-pretty in
// this thread, one line per entry (the bundled simulator shares the service's
// terminal); elsewhere JSON lines. A request is one line, written when its answer
// has gone: at debug (an on-sale rehearsal sends thousands), 5xx at error, 503 at warn.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Headers a log line must never carry: the API key and the webhook's signature. */
const SECRET_HEADERS = ['authorization', 'stripe-signature'];

export function createLogger(s: { name: string; level?: string; pretty?: boolean; stream?: DestinationStream }): Logger {
  const { pretty: onTerminal, stream, ...given } = s;
  return pino({
    ...given,
    serializers: { req: (r: FastifyRequest) => ({ method: r.method, url: r.url, host: r.host, remoteAddress: r.ip, remotePort: r.socket?.remotePort }) },
    redact: { paths: SECRET_HEADERS.flatMap((h) => [`headers["${h}"]`, `req.headers["${h}"]`]), censor: '[redacted]' },
  }, stream ?? (onTerminal ? pretty({
    colorize: true,
    singleLine: true,
    // Synchronous, so the lines before a process.exit are not lost.
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,req,res,responseTime',
  }) : undefined));
}

function isLogger(l: unknown): l is Logger {
  return typeof l === 'object' && l !== null && typeof (l as Logger).child === 'function' && typeof (l as Logger).info === 'function';
}

/** A logger given ready-made, one made from options (`{ level, stream }`) under `name`, or none. */
export function loggerFrom(name: string, given: boolean | object | Logger | undefined): Logger | null {
  if (!given) return null;
  if (isLogger(given)) return given;
  return createLogger({ name, ...(given === true ? {} : given) });
}

class RequestLines extends LogController {
  constructor() {
    super({ disableRequestLogging: false });
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override defaultErrorLog(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const level = status === 503 ? 'warn' : status >= 500 || error ? 'error' : 'debug';
    if (!(request.log as Logger).isLevelEnabled?.(level)) return;
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log[level]({ req: request, res: reply, responseTime: ms, ...(error ? { err: error } : {}) }, `${request.method} ${request.url} ${status} ${ms} ms ${request.ip}`);
  }
}

/** Fastify's logging options for a logger (one line per request, as above), or none. */
export function appLogging(log: Logger | null) {
  return log ? { loggerInstance: log as FastifyBaseLogger, logController: new RequestLines() } : { logger: false as const };
}
