// Refusals that Node's HTTP server makes before any Fastify route runs: a request
// the parser rejects (oversized headers, garbage), an unknown Expect, a CONNECT,
// a missing Host, a request arriving while the instance shuts down. By contract
// they are problem+json like every other error.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionError, FastifyInstance } from 'fastify';
import type { ErrorCode } from '../domain/errors.js';
import { problem, sendProblem, type ProblemAnswer } from './problem.js';
import { NOSNIFF } from './securityHeaders.js';

/**
 * A problem with the HTTP status the refusal needs. The contract's closed set has
 * no code for 431, 408 or 417; these are malformed requests, so VALIDATION_FAILED
 * (a client that knows the set stays correct), with the status HTTP requires.
 */
function problemAt(status: number, code: ErrorCode, detail: string): ProblemAnswer {
  const a = problem(code, detail);
  return { ...a, status, body: { ...a.body, status } };
}

function parserRefusal(errorCode: string | undefined): ProblemAnswer {
  switch (errorCode) {
    case 'HPE_HEADER_OVERFLOW':
      return problemAt(431, 'VALIDATION_FAILED', 'the request line and headers are larger than this server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problemAt(408, 'VALIDATION_FAILED', 'the request did not arrive in time');
    default:
      return problemAt(400, 'VALIDATION_FAILED', 'the request is not well-formed HTTP/1.1');
  }
}

/** The whole answer as bytes for a socket no HTTP response object owns; the connection ends with it. */
function onTheWire(a: ProblemAnswer): string {
  const body = JSON.stringify(a.body);
  return `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status]}\r\ncontent-type: ${a.headers['content-type']}\r\nx-content-type-options: nosniff\r\n`
    + `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`: Node's parser refused what arrived on this socket. */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // The code only: the parser's error carries the raw bytes it refused, keys and tokens included.
  this.log.debug({ code: err.code }, 'malformed request refused');
  // A response already under way on this socket must not be cut by a second one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(onTheWire(parserRefusal(err.code)));
  socket.destroy(err);
}

/** The refusals Node makes itself (Expect, CONNECT, Host) and the shutdown 503, as problem+json; `closing`: whether the instance is shutting down. */
export function installHttpLayerProblems(app: FastifyInstance): { closing: () => boolean } {
  app.server.on('checkExpectation', (_req, res) => {
    const a = problemAt(417, 'VALIDATION_FAILED', 'the only expectation this server meets is 100-continue');
    const body = JSON.stringify(a.body);
    res.writeHead(a.status, { ...a.headers, ...NOSNIFF, 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
  });
  app.server.on('connect', (_req, socket: Duplex) => {
    socket.end(onTheWire(problem('NOT_FOUND', 'this server is not a proxy: no route CONNECT')));
  });

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Replies without calling done(): the request goes no further.
  app.addHook('onRequest', (req, reply, done) => {
    if (closing) {
      reply.header('connection', 'close');
      return void sendProblem(reply, 'NOT_READY', 'this instance is shutting down; send the request again (to another instance)');
    }
    // Node's own check (requireHostHeader) answers an empty 400; this one says why.
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
      return void sendProblem(reply, 'VALIDATION_FAILED', 'an HTTP/1.1 request needs a Host header');
    }
    done();
  });
  return { closing: () => closing };
}
