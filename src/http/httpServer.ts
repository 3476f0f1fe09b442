// The node:http server under Fastify, made here (Fastify's `serverFactory`) so that
// a fast lane may answer a request before the router sees it (./mapFastLane.ts). It
// is the server Fastify would make itself: the same options, timeouts and limits.
import http from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { NOSNIFF } from './securityHeaders.js';

/** Answers and says true, or says false and leaves the request to Fastify. */
export type FastLane = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/** The options Fastify hands its server factory that its own server is made with. */
interface ServerOptions {
  http?: http.ServerOptions | null;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number | null;
}

export function serverWithFastLane(lane: () => FastLane | null): FastifyServerFactory {
  return (handler, given) => {
    const opts = given as ServerOptions;
    const server = http.createServer(opts.http ?? {}, (req, res) => {
      if (lane()?.(req, res)) return;
      // Here, not in a hook: answers sent before or around Fastify's hooks (SSE, refusals) carry it too.
      res.setHeader('x-content-type-options', NOSNIFF['x-content-type-options']);
      handler(req, res);
    });
    // As fastify/lib/server.js sets them on the server it makes (its defaults are filled in by now).
    if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    server.setTimeout(opts.connectionTimeout ?? 0);
    if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
    return server;
  };
}
