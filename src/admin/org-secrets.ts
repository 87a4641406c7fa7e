import { z } from 'zod';
import type { SecretBox } from '../auth/secret-box.ts';
import type { DbOrTx } from '../db/client.ts';
import { deleteOrgSecret, listOrgSecrets, putOrgSecret } from '../db/org-secrets.ts';
import { secretNameSchema } from '../shared/secret-names.ts';
import { AdminError, parseOrThrow } from './errors.ts';
import { requireOrg } from './orgs.ts';

/** A Slack token, an API key or a PEM certificate fits; a file does not. */
const secretValueSchema = z.string().min(1, 'must not be empty').max(16_384, 'must be at most 16 KiB');

export interface OrgSecretSummary {
  name: string;
  created_at: string;
  updated_at: string;
}

/**
 * Sets the org's secret `name` (created or replaced). The value is sealed before it is stored and is
 * never shown again: listings give names and dates only, and only the worker opens it, by name.
 */
export async function setOrgSecret(
  db: DbOrTx,
  box: SecretBox,
  orgId: string,
  name: string,
  value: string,
): Promise<{ name: string; created: boolean }> {
  parseOrThrow(secretNameSchema, name, 'name');
  parseOrThrow(secretValueSchema, value, 'value');
  await requireOrg(db, orgId);
  return { name, created: await putOrgSecret(db, orgId, name, box.seal(orgId, name, value)) };
}

export async function listSecrets(db: DbOrTx, orgId: string): Promise<OrgSecretSummary[]> {
  await requireOrg(db, orgId);
  return (await listOrgSecrets(db, orgId)).map((s) => ({
    name: s.name,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  }));
}

export async function removeOrgSecret(db: DbOrTx, orgId: string, name: string): Promise<void> {
  if (!(await deleteOrgSecret(db, orgId, name))) throw new AdminError(`no secret named ${name}`, 'not_found');
}
