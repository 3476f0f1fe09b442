// Accounts: register, sign in, roles, the configured admin.
import { DomainError, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import type { Role } from '../auth/tokens.js';
import { randomBytes } from 'node:crypto';
import { countAdmins, findUserByEmail, findUserRole, insertUser, NO_PASSWORD, setUserRole, upsertAdmin } from '../db/users.js';
import type { Context } from './context.js';
import { accountOfEmail, signInAttemptKey } from '../domain/rateLimits.js';
import { rateLimitedError, throttleOrThrow, type Client } from './throttle.js';

let dummyHash: Promise<string> | undefined;

/** Registers a buyer account and signs it in. The address's sign-up budget is checked before the slow hash. */
export async function register(ctx: Context, input: { email: string; password: string; name?: string }, client: Client) {
  await throttleOrThrow(ctx, client, [['sign_up_address', client.address]]);
  const id = newId('usr');
  const password_hash = await hashPassword(input.password);
  const created = await insertUser(ctx.db, { id, email: input.email, password_hash, name: input.name ?? null });
  if (!created) throw new DomainError('EMAIL_TAKEN', 'an account with this email already exists');
  return { user_id: id, token: ctx.tokens.issue({ userId: id, role: 'user' }) };
}

/**
 * Signs in with email and password; the same answer for an unknown email and a
 * wrong password. Limits come first, before the slow hash: whether this address's
 * own failures on the account hold it back (refusing spends no budget), then the
 * address's budget. Failures count per account and address, so nobody locks an
 * account's owner out by guessing wrong from elsewhere.
 */
export async function signIn(ctx: Context, input: { email: string; password: string }, client: Client) {
  const account = accountOfEmail(input.email);
  if (!client.exempt) {
    const { verdict, policy } = await ctx.rateLimits.signInAllowed(account, client.address);
    if (!verdict.allowed) {
      ctx.metrics.rateLimited.inc({ policy });
      throw rateLimitedError(verdict.retryAfterSeconds);
    }
    await throttleOrThrow(ctx, client, [['sign_in_address', client.address], ['sign_in_account_address', signInAttemptKey(account, client.address)]]);
  }
  const user = await findUserByEmail(ctx.db, input.email);
  // Compare against some hash even for unknown emails, so timing does not reveal accounts.
  dummyHash ??= hashPassword('not-a-real-password');
  // An account without a password (a synthetic buyer) is compared against it too, and refused.
  const usable = user && user.password_hash !== NO_PASSWORD ? user.password_hash : null;
  const ok = await verifyPassword(input.password, usable ?? (await dummyHash));
  if (!user || !usable || !ok) {
    if (!client.exempt) await ctx.rateLimits.signInFailed(account, client.address);
    throw new DomainError('INVALID_CREDENTIALS', 'email or password is wrong');
  }
  if (!client.exempt) await ctx.rateLimits.signInSucceeded(account, client.address);
  return { user_id: user.id, token: ctx.tokens.issue({ userId: user.id, role: user.role }), role: user.role };
}

/**
 * The role the database holds now for this account, or null when the account no
 * longer exists: a token keeps the role it was issued with and outlives its account.
 */
export async function currentRole(ctx: Context, userId: string): Promise<Role | null> {
  return findUserRole(ctx.db, userId);
}

export async function changeRole(ctx: Context, userId: string, role: Role) {
  if (!(await setUserRole(ctx.db, userId, role))) throw notFound('user');
  return { user_id: userId, role };
}

/** Makes sure the admin named by the environment exists with that password. */
export async function ensureAdmin(ctx: Context): Promise<void> {
  const { adminEmail, adminPassword } = ctx.config;
  if (!adminEmail || !adminPassword) return;
  const existing = await findUserByEmail(ctx.db, adminEmail);
  if (existing?.role === 'admin' && (await verifyPassword(adminPassword, existing.password_hash))) return;
  await setAdmin(ctx, adminEmail, adminPassword);
}

/** Creates an admin account, or makes an existing account admin with this password. */
export async function setAdmin(ctx: Context, email: string, password: string): Promise<void> {
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new DomainError('VALIDATION_FAILED', `"${email}" is not an e-mail address`);
  if (password.length < 8) throw new DomainError('VALIDATION_FAILED', 'the password needs at least 8 characters');
  await upsertAdmin(ctx.db, newId('usr'), email, await hashPassword(password));
}

export const DEMO_ADMIN_EMAIL = 'admin@boxoffice.demo';

/**
 * On the embedded default (no DATABASE_URL, no configured admin) a newcomer needs
 * a way in as an operator: the first start makes a demo admin with a generated
 * password and returns it, once, for the start output. Later starts return null.
 */
export async function ensureDemoAdmin(ctx: Context): Promise<{ email: string; password: string } | null> {
  if (ctx.config.databaseUrl || ctx.config.adminEmail) return null;
  if ((await countAdmins(ctx.db)) > 0) return null;
  const password = randomBytes(12).toString('base64url');
  const created = await insertUser(ctx.db, {
    id: newId('usr'), email: DEMO_ADMIN_EMAIL, password_hash: await hashPassword(password), name: 'Demo administrator', role: 'admin',
  });
  return created ? { email: DEMO_ADMIN_EMAIL, password } : null;
}

/** Who can administer this installation, for the start output (never a password). */
export async function adminSummary(ctx: Context): Promise<{ configured: string | null; admins: number }> {
  return { configured: ctx.config.adminEmail, admins: await countAdmins(ctx.db) };
}
