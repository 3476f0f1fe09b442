// Accounts: register, sign in, roles, the configured admin.
import { DomainError, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import type { Role } from '../auth/tokens.js';
import { findUserByEmail, findUserRole, insertUser, setUserRole, upsertAdmin } from '../db/users.js';
import type { Context } from './context.js';

let dummyHash: Promise<string> | undefined;

/** Registers a buyer account and signs it in. */
export async function register(ctx: Context, input: { email: string; password: string; name?: string }) {
  const id = newId('usr');
  const password_hash = await hashPassword(input.password);
  const created = await insertUser(ctx.db, { id, email: input.email, password_hash, name: input.name ?? null });
  if (!created) throw new DomainError('EMAIL_TAKEN', 'an account with this email already exists');
  return { user_id: id, token: await ctx.tokens.issue({ userId: id, role: 'user' }) };
}

/** Signs in with email and password; the same answer for an unknown email and a wrong password. */
export async function signIn(ctx: Context, input: { email: string; password: string }) {
  const user = await findUserByEmail(ctx.db, input.email);
  // Compare against some hash even for unknown emails, so timing does not reveal accounts.
  dummyHash ??= hashPassword('not-a-real-password');
  const ok = await verifyPassword(input.password, user?.password_hash ?? (await dummyHash));
  if (!user || !ok) throw new DomainError('INVALID_CREDENTIALS', 'email or password is wrong');
  return { user_id: user.id, token: await ctx.tokens.issue({ userId: user.id, role: user.role }), role: user.role };
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
  await upsertAdmin(ctx.db, newId('usr'), adminEmail, await hashPassword(adminPassword));
}
