// Bearer-token checks, run as onRequest hooks so that 401/403 answer before any
// 404 or 400, as the contract orders them.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import type { Principal, Role } from '../auth/tokens.js';
import { currentRole } from '../app/accounts.js';
import type { Context } from '../app/context.js';
import { sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function bearerToken(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match ? match[1]! : null;
}

/** The principal of a valid bearer token, or null. */
export function authenticate(ctx: Context, req: FastifyRequest): Principal | null {
  const token = bearerToken(req);
  return token ? ctx.tokens.verify(token) : null;
}

/** Any signed-in user; synchronous (the hot path). */
export function requireUser(ctx: Context): onRequestHookHandler {
  return function (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const principal = authenticate(ctx, req);
    if (!principal) return void sendProblem(reply, 'UNAUTHENTICATED', 'a valid bearer token is required');
    req.principal = principal;
    done();
  };
}

/**
 * A signed-in user holding one of the roles. The role is read from the database,
 * not the token, so a demoted admin loses the rights at once.
 */
export function requireRole(ctx: Context, ...roles: Role[]): onRequestAsyncHookHandler {
  return async function (req: FastifyRequest, reply: FastifyReply) {
    req.principal = authenticate(ctx, req);
    if (!req.principal) return sendProblem(reply, 'UNAUTHENTICATED', 'a valid bearer token is required');
    const role = await currentRole(ctx, req.principal.userId);
    if (!role) return sendProblem(reply, 'UNAUTHENTICATED', 'this account no longer exists');
    if (!roles.includes(role)) return sendProblem(reply, 'FORBIDDEN', `this needs the role ${roles.join(' or ')}`);
    req.principal = { ...req.principal, role };
  };
}
