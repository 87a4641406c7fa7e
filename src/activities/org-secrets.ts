import { ApplicationFailure } from '@temporalio/activity';
import { createSecretBox, SecretUnreadableError, type SecretBox } from '../auth/secret-box.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { findSealedOrgSecret } from '../db/org-secrets.ts';

/**
 * The org's secrets as activities read them: by name, inside the activity, so a value is never in a
 * workflow's input or history. A missing or unreadable secret fails the activity for good (no retry can set it).
 */
export function orgSecretReader(db: Db, config: Config) {
  let box: SecretBox | undefined;
  return async function readOrgSecret(orgId: string, name: string, usedFor: string): Promise<string> {
    const sealed = await findSealedOrgSecret(db, orgId, name);
    if (!sealed)
      throw ApplicationFailure.nonRetryable(
        `the org has no secret named ${name} (${usedFor}); set it with PUT /api/admin/secrets/${name}`,
        'SecretMissing',
      );
    try {
      return (box ??= createSecretBox(config.secrets.key)).open(orgId, name, sealed);
    } catch (err) {
      if (err instanceof SecretUnreadableError) throw ApplicationFailure.nonRetryable(err.message, 'SecretUnreadable');
      throw err;
    }
  };
}
