import type { DbOrTx } from '../db/client.ts';
import { orgSecretExists } from '../db/org-secrets.ts';
import type { AgentModelSettings } from '../shared/agent-settings.ts';
import { headerSecretNames } from '../shared/tool-server-settings.ts';
import { AdminError } from './errors.ts';

/** Every secret an agent's tool-server headers name must exist in its org when the settings are applied. */
export async function checkToolServerSecrets(
  db: DbOrTx,
  orgId: string,
  settings: AgentModelSettings | undefined,
  path: string,
): Promise<void> {
  for (const [i, server] of (settings?.tool_servers ?? []).entries()) {
    for (const name of headerSecretNames(server)) {
      if (!(await orgSecretExists(db, orgId, name)))
        throw new AdminError(
          `${path}.settings.tool_servers.${i}.headers: the org has no secret named ${name} (set it first: PUT /api/admin/secrets/{name} or \`admin secret set\`)`,
        );
    }
  }
}
