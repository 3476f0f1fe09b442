import type { Queryable } from './client.js';
import type { Role } from '../auth/tokens.js';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  name: string | null;
  role: Role;
}

/** Inserts a user; false when the email (case-insensitive) is already registered. */
export async function insertUser(db: Queryable, u: Omit<UserRow, 'role'> & { role?: Role }): Promise<boolean> {
  const r = await db.query(
    `insert into users (id, email, password_hash, name, role) values ($1, $2, $3, $4, $5)
     on conflict (lower(email)) do nothing`,
    [u.id, u.email, u.password_hash, u.name, u.role ?? 'user'],
  );
  return r.rowCount === 1;
}

/** A password hash no password verifies: the mark of an account that cannot sign in. */
export const NO_PASSWORD = '!';

/** Inserts synthetic buyers (role `user`, no password) under a label, in one statement. */
export async function insertSyntheticUsers(db: Queryable, ids: readonly string[], label: string): Promise<void> {
  await db.query(
    `insert into users (id, email, password_hash, name, role, synthetic_label)
     select id, id || '@synthetic.invalid', '${NO_PASSWORD}', 'Synthetic buyer (' || $2 || ')', 'user', $2 from unnest($1::text[]) as id`,
    [ids, label],
  );
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const r = await db.query<UserRow>('select id, email, password_hash, name, role from users where lower(email) = lower($1)', [email]);
  return r.rows[0] ?? null;
}

export async function findUserRole(db: Queryable, id: string): Promise<Role | null> {
  const r = await db.query<{ role: Role }>('select role from users where id = $1', [id]);
  return r.rows[0]?.role ?? null;
}

/** Which of the accounts exist: one statement however many are asked. */
export async function existingUsers(db: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const r = await db.query<{ id: string }>('select id from users where id = any ($1::text[])', [ids]);
  return new Set(r.rows.map((row) => row.id));
}

export async function setUserRole(db: Queryable, id: string, role: Role): Promise<boolean> {
  const r = await db.query('update users set role = $2 where id = $1', [id, role]);
  return r.rowCount === 1;
}

/** Creates the admin or resets its password and role: the environment is the source of truth. */
export async function upsertAdmin(db: Queryable, id: string, email: string, passwordHash: string): Promise<void> {
  await db.query(
    `insert into users (id, email, password_hash, name, role) values ($1, $2, $3, 'Administrator', 'admin')
     on conflict (lower(email)) do update set password_hash = excluded.password_hash, role = 'admin'`,
    [id, email, passwordHash],
  );
}

export async function countAdmins(db: Queryable): Promise<number> {
  const r = await db.query<{ n: string | number }>(`select count(*) as n from users where role = 'admin'`);
  return Number(r.rows[0]!.n);
}
