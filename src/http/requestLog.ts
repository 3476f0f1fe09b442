// A request's logger, made only when the request logs something. Fastify gives
// every request a child logger (its bindings: the request id); pino makes one in
// about half a microsecond, for each of thousands of map reads a second that, at
// LOG_LEVEL=warn, never write a line. This one holds the bindings and makes the
// pino child on the first call at a level the logger writes: the same lines, the
// same fields, for the requests that log.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn, Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

export class RequestLog implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(private readonly parent: Logger, private readonly bindings: Bindings) {}

  private get log(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings) as FastifyBaseLogger);
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.log.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.made ? (this.made as Logger).isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }

  // The level methods are on the prototype (below): nothing is made per request but this object.
  declare readonly fatal: LogFn;
  declare readonly error: LogFn;
  declare readonly warn: LogFn;
  declare readonly info: LogFn;
  declare readonly debug: LogFn;
  declare readonly trace: LogFn;
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const satisfies readonly Level[]) {
  Object.defineProperty(RequestLog.prototype, level, {
    value: function (this: RequestLog, ...args: Parameters<LogFn>) {
      if (this.isLevelEnabled(level)) (this as unknown as { log: FastifyBaseLogger }).log[level](...args);
    },
  });
}

/**
 * Fastify's childLoggerFactory: a RequestLog, or pino's own child when the route
 * sets its own level or serializers (they must apply from the start).
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  const pinoLogger = logger as unknown as Logger;
  if (opts.level !== undefined || opts.serializers !== undefined || typeof pinoLogger.isLevelEnabled !== 'function') return logger.child(bindings, opts);
  return new RequestLog(pinoLogger, bindings);
}
