import type { DbOrTx } from '../db/client.ts';
import { orgSecretExists } from '../db/org-secrets.ts';
import type { AgentModelSettings } from '../shared/agent-settings.ts';
import { toolServerSecretNames, type ToolServerSettings } from '../shared/tool-server-settings.ts';
import { AdminError } from './errors.ts';

/** Every secret an agent's settings name (tool-server headers and OAuth client secrets, the model's `api_key`) must exist in its org when they are applied. */
export async function checkToolServerSecrets(
  db: DbOrTx,
  orgId: string,
  settings: AgentModelSettings | undefined,
  path: string,
): Promise<void> {
  const keySecret = settings?.api_key?.secret;
  if (keySecret && !(await orgSecretExists(db, orgId, keySecret)))
    throw new AdminError(
      `${path}.settings.api_key: the org has no secret named ${keySecret} (set it first: PUT /api/admin/secrets/{name} or \`admin secret set\`)`,
    );
  for (const [i, server] of (settings?.tool_servers ?? []).entries()) {
    for (const { name, field } of toolServerSecretNames(server)) {
      if (!(await orgSecretExists(db, orgId, name)))
        throw new AdminError(
          `${path}.settings.tool_servers.${i}.${field}: the org has no secret named ${name} (set it first: PUT /api/admin/secrets/{name} or \`admin secret set\`)`,
        );
    }
  }
}

/** The secrets a server names (headers, OAuth client secret) that its org does not have, with where each is named. */
export async function missingServerSecrets(
  db: DbOrTx,
  orgId: string,
  server: ToolServerSettings,
): Promise<{ name: string; field: string }[]> {
  const missing: { name: string; field: string }[] = [];
  for (const named of toolServerSecretNames(server))
    if (!(await orgSecretExists(db, orgId, named.name))) missing.push(named);
  return missing;
}
