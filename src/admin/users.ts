import { z } from 'zod';
import type { DbOrTx } from '../db/client.ts';
import { findUser, findUserByEmail, insertUser, listUsersOfOrg, Role } from '../db/users.ts';
import { newId } from '../shared/ids.ts';
import { AdminError, isUniqueViolation, parseOrThrow } from './errors.ts';
import { requireOrg } from './orgs.ts';

export const roles = Object.values(Role);
export const roleSchema = z.enum(Role);
export const emailSchema = z.string().trim().pipe(z.email());

export interface UserSummary {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  created_at: string;
}

export interface CreateUserInput {
  orgId: string;
  email: string;
  name?: string;
  role: string;
}

export async function createUser(db: DbOrTx, input: CreateUserInput): Promise<UserSummary> {
  const email = parseOrThrow(emailSchema, input.email, 'email');
  const role = parseOrThrow(roleSchema, input.role, 'role');
  await requireOrg(db, input.orgId);
  if (await findUserByEmail(db, input.orgId, email)) {
    throw new AdminError(`a user with email ${email} already exists in org ${input.orgId}`);
  }
  try {
    const user = await insertUser(db, {
      id: newId('usr'),
      orgId: input.orgId,
      email,
      name: input.name?.trim() ?? '',
      role,
    });
    return toSummary(user);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AdminError(`a user with email ${email} already exists in org ${input.orgId}`);
    throw err;
  }
}

export async function listUsers(db: DbOrTx, orgId: string): Promise<UserSummary[]> {
  await requireOrg(db, orgId);
  const users = await listUsersOfOrg(db, orgId);
  return users.map(toSummary);
}

export async function requireUser(db: DbOrTx, userId: string) {
  const user = await findUser(db, userId);
  if (!user) throw new AdminError(`user ${userId} not found`);
  return user;
}

export function toSummary(u: {
  id: string;
  orgId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}): UserSummary {
  return {
    id: u.id,
    org_id: u.orgId,
    email: u.email,
    name: u.name,
    role: u.role,
    created_at: u.createdAt.toISOString(),
  };
}
