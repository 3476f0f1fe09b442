// The web app for buyers and operators (web/, built by Vite into dist/web) served at `/`.
// Its files are served as built, pre-compressed (.br/.gz written by the build); any other
// GET that a browser navigates to (Accept: text/html) outside the API gets index.html,
// and the app's router draws the page. API clients asking for an unknown route still get
// a 404 problem+json.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';

/** dist/web of this package: found by walking up from this module to package.json. */
export function defaultWebRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, 'dist', 'web');
}

const API_PREFIXES = ['/v1/', '/docs', '/openapi.json', '/metrics', '/healthz', '/readyz'];

/** A page a browser asks for, not a file or an API route. */
export function isPageRequest(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const p = req.url.split('?')[0] ?? '';
  if (API_PREFIXES.some((prefix) => p.startsWith(prefix)) || path.extname(p) !== '') return false;
  return (req.headers.accept ?? '').includes('text/html');
}

export interface WebApp {
  /** Answers a page request with the app's index.html. */
  sendPage(reply: FastifyReply): FastifyReply;
}

/** Registers the built web app; null (and nothing registered) when it has not been built. */
export async function registerWebApp(app: FastifyInstance, root: string): Promise<WebApp | null> {
  const indexFile = path.join(root, 'index.html');
  if (!existsSync(indexFile)) return null;
  const index = readFileSync(indexFile);
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false, // one route per built file: other paths stay the API's 404
    index: false,
    preCompressed: true,
    serveDotFiles: false,
    cacheControl: false, // set below, per file
    // Vite names assets by content hash: they never change under one name.
    setHeaders: (res, file) => {
      res.setHeader('cache-control', file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
    schemaHide: true,
  });
  const sendPage = (reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(index);
  app.get('/', { schema: { hide: true } }, (_req, reply) => sendPage(reply));
  return { sendPage };
}
