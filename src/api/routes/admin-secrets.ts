import { z } from 'zod';
import { AdminError } from '../../admin/errors.ts';
import { listSecrets, removeOrgSecret, setOrgSecret } from '../../admin/org-secrets.ts';
import { secretNameSchema } from '../../shared/secret-names.ts';
import { notFound } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import { requireOrgAdmin } from '../services/org-admin-access.ts';

/*
 * The org's secrets: credentials the org brings (a Slack bot token, a tool server's key), set here
 * and named in settings (`messaging.bot_token_secret`). Values go in and never come out: the worker
 * opens them by name inside the activity that uses them.
 */
const ADMINS_ONLY = 'Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403).';

const secretSchema = z
  .object({ name: z.string(), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'OrgSecret' });
const secretListSchema = z
  .object({ secrets: z.array(secretSchema), count: z.number().int() })
  .meta({ id: 'OrgSecretList' });
const setSecretSchema = z
  .strictObject({
    value: z
      .string()
      .min(1)
      .max(16_384)
      .describe('The secret itself (at most 16 KiB); stored sealed, never shown again'),
  })
  .meta({ id: 'SetOrgSecretRequest' });
const secretParams = z.object({ name: secretNameSchema });

export const adminSecretRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/admin/secrets',
    operationId: 'listOrgSecrets',
    summary: "The organization's secrets, by name",
    description: `${ADMINS_ONLY} Names and dates only: a value is never shown after it is set.`,
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    responses: { 200: { description: 'Secrets, by name', schema: secretListSchema }, ...errorResponses },
    async handler({ caller }, { db }) {
      requireOrgAdmin(caller);
      const secrets = await listSecrets(db, caller.orgId);
      return { secrets, count: secrets.length };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/secrets/{name}',
    operationId: 'setOrgSecret',
    summary: 'Set a secret of the organization',
    description:
      `${ADMINS_ONLY} Creates or replaces the secret. It is sealed with the service's SECRETS_KEY (AES-256-GCM, bound to the org and the name) ` +
      'and opened only by the worker, inside the activity that uses it: never in a workflow input, a history, a log or an answer.',
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    params: secretParams,
    body: setSecretSchema,
    responses: {
      200: { description: 'The secret was set', schema: z.object({ name: z.string(), created: z.boolean() }) },
      ...errorResponses,
    },
    async handler({ caller, params, body }, { db, secrets }) {
      requireOrgAdmin(caller);
      return setOrgSecret(db, secrets, caller.orgId, params.name, body.value);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/secrets/{name}',
    operationId: 'deleteOrgSecret',
    summary: 'Delete a secret of the organization',
    description: `${ADMINS_ONLY} Settings that still name it fail where they use it (a messaging flow's reply), with a message that says so.`,
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    params: secretParams,
    responses: {
      200: { description: 'Deleted', schema: z.object({ name: z.string(), deleted: z.literal(true) }) },
      ...errorResponses,
    },
    async handler({ caller, params }, { db }) {
      requireOrgAdmin(caller);
      try {
        await removeOrgSecret(db, caller.orgId, params.name);
      } catch (err) {
        if (err instanceof AdminError && err.kind === 'not_found') throw notFound(`Secret ${params.name} not found`);
        throw err;
      }
      return { name: params.name, deleted: true as const };
    },
  }),
];
