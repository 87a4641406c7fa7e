import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey } from '../../admin/api-keys.ts';
import { mayActAs } from '../../admin/org-roles.ts';
import { listUsers } from '../../admin/users.ts';
import { forbidden, notFound } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import { requireOrgAdmin } from '../services/org-admin-access.ts';

/*
 * Administration of the caller's org over HTTP (the web console's admin screens). The handlers
 * call the same src/admin functions as the `admin` CLI and `admin apply`, never a second
 * implementation.
 */
const ADMINS_ONLY = 'Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403).';

const apiKeySchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    user_id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The non-secret start of the key, for recognising it'),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });
const apiKeyListSchema = z.object({ keys: z.array(apiKeySchema), count: z.number().int() }).meta({ id: 'ApiKeyList' });
const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe('The full key: shown this once, never stored') })
  .meta({ id: 'CreatedApiKey' });
const revokedApiKeySchema = apiKeySchema.extend({ already_revoked: z.boolean() }).meta({ id: 'RevokedApiKey' });
const createApiKeySchema = z
  .strictObject({
    user_id: z.string().min(1).max(100).optional().describe('A member of the org (default: the caller)'),
    name: z.string().trim().min(1).max(200).describe('What the key is for, shown in key lists'),
  })
  .meta({ id: 'CreateApiKeyRequest' });
const memberSchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(['owner', 'admin', 'member', 'guest']),
    created_at: z.string(),
  })
  .meta({ id: 'Member' });
const memberListSchema = z
  .object({ members: z.array(memberSchema), count: z.number().int() })
  .meta({ id: 'MemberList' });
const keyParams = z.object({ key_id: z.string().min(1).max(100) });

export const adminRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/admin/api-keys',
    operationId: 'listApiKeys',
    summary: "The organization's API keys",
    description: `${ADMINS_ONLY} Only each key's prefix is shown, never the key.`,
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    responses: { 200: { description: 'Keys, newest first', schema: apiKeyListSchema }, ...errorResponses },
    async handler({ caller }, { db }) {
      requireOrgAdmin(caller);
      const keys = await listApiKeys(db, { orgId: caller.orgId });
      return { keys, count: keys.length };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key for a member of the organization',
    description: `${ADMINS_ONLY} Only an owner may create a key for an owner (403 otherwise: a key acts as its user). The answer carries the full key; it is never shown again.`,
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    body: createApiKeySchema,
    status: 201,
    responses: { 201: { description: 'The new key', schema: createdApiKeySchema }, ...errorResponses },
    async handler({ caller, body }, { db }) {
      requireOrgAdmin(caller);
      const userId = body.user_id ?? caller.userId;
      const member = (await listUsers(db, caller.orgId)).find((m) => m.id === userId);
      if (!member) throw notFound(`User ${userId} not found in this organization`);
      if (!mayActAs(caller.role, member.role))
        throw forbidden('Only an owner may create a key for an owner (a key acts as its user)');
      return createApiKey(db, { userId, name: body.name });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/api-keys/{key_id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: `${ADMINS_ONLY} Only an owner may revoke an owner's key (403). Exchanges with a revoked key get 401 at once, and so does every request with a token issued for it.`,
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    params: keyParams,
    responses: { 200: { description: 'The revoked key', schema: revokedApiKeySchema }, ...errorResponses },
    async handler({ caller, params }, { db }) {
      requireOrgAdmin(caller);
      const key = (await listApiKeys(db, { orgId: caller.orgId })).find((k) => k.id === params.key_id);
      if (!key) throw notFound(`API key ${params.key_id} not found`);
      const holder = (await listUsers(db, caller.orgId)).find((m) => m.id === key.user_id);
      if (holder && !mayActAs(caller.role, holder.role)) throw forbidden("Only an owner may revoke an owner's key");
      return revokeApiKey(db, params.key_id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/members',
    operationId: 'listMembers',
    summary: 'Members of the organization and their roles',
    description: ADMINS_ONLY,
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    responses: { 200: { description: 'Members', schema: memberListSchema }, ...errorResponses },
    async handler({ caller }, { db }) {
      requireOrgAdmin(caller);
      const members = await listUsers(db, caller.orgId);
      return { members, count: members.length };
    },
  }),
];
