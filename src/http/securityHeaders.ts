// The security headers of the contract (API.md Conventions): every answer says
// `nosniff`, so that no browser reads a JSON answer or an uploaded-looking body
// as a script or a page; pages (HTML: the web app, /docs) also carry a policy
// that runs only the service's own scripts, cannot be framed, and leak no URL to
// another site (ticket QR addresses are capabilities: `no-referrer`).
import type { FastifyInstance } from 'fastify';

export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const;

const COMMON = [
  "default-src 'self'", "script-src 'self'", "img-src 'self' data:", "object-src 'none'",
  "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
];

/**
 * The web app sets styles only through the DOM (Preact writes `el.style`), which
 * a policy does not govern: no inline style either.
 */
export const APP_POLICY = [...COMMON, "style-src 'self'"].join('; ');

/** Swagger UI writes `<style>` elements and style attributes of its own: inline styles, never inline scripts. */
export const DOCS_POLICY = [...COMMON, "style-src 'self' 'unsafe-inline'"].join('; ');

const PAGE_HEADERS = { 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' } as const;

/** Adds the page headers to every HTML answer the router sends (nosniff is set for all by the server, httpServer.ts). */
export function installPageHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      reply.headers(PAGE_HEADERS);
      reply.header('content-security-policy', req.url.startsWith('/docs') ? DOCS_POLICY : APP_POLICY);
    }
    done(null, payload);
  });
}
