import { z } from 'zod';
import { generateWidgetKey } from '../auth/api-keys.ts';
import { findAgent } from '../db/agents.ts';
import type { DbOrTx } from '../db/client.ts';
import {
  findWidgetKey,
  insertWidgetKey,
  listWidgetKeys as listWidgetKeyRows,
  revokeWidgetKeyOnce,
  type WidgetKey,
} from '../db/widget-keys.ts';
import { newId } from '../shared/ids.ts';
import { AdminError, parseOrThrow } from './errors.ts';
import { requireOrg } from './orgs.ts';

/** A browser origin as the `Origin` header sends it: http(s)://host[:port], nothing after. */
export const originSchema = z
  .string()
  .trim()
  .transform((v) => v.replace(/\/$/, ''))
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === v;
    } catch {
      return false;
    }
  }, 'must be an origin like https://shop.example.com (scheme, host and port only)')
  .describe(
    'A browser origin exactly as the Origin header sends it: http(s)://host[:port], lowercase host, no default port, no path',
  );

export const originsSchema = z.array(originSchema).min(1, 'list at least one allowed origin');

export interface WidgetKeySummary {
  id: string;
  org_id: string;
  agent_id: string;
  name: string;
  /** Non-secret start of the key, for recognising it. */
  prefix: string;
  origins: string[];
  created_at: string;
  revoked_at: string | null;
}

/** A newly created key. Publishable (it sits in a page), yet only its hash is stored, like an API key. */
export interface CreatedWidgetKey extends WidgetKeySummary {
  key: string;
}

/**
 * Creates a widget key for one customer-facing agent of the org. An agent that is not
 * customer-facing is refused: the widget talks to the org's customers.
 */
export async function createWidgetKey(
  db: DbOrTx,
  input: { orgId: string; agentId: string; name: string; origins: string[] },
): Promise<CreatedWidgetKey> {
  const name = input.name.trim();
  if (!name) throw new AdminError('widget key name must not be empty');
  const origins = [...new Set(parseOrThrow(originsSchema, input.origins, 'origins'))];
  await requireOrg(db, input.orgId);
  const agent = await findAgent(db, input.agentId);
  if (!agent || agent.orgId !== input.orgId)
    throw new AdminError(`agent ${input.agentId} not found in org ${input.orgId}`);
  if (!agent.customerFacing) throw new AdminError(notCustomerFacing(agent.name));
  const { key, prefix, hash } = generateWidgetKey();
  const row = await insertWidgetKey(db, {
    id: newId('wgk'),
    orgId: input.orgId,
    agentId: agent.id,
    name,
    prefix,
    hash,
    origins,
  });
  return { ...toWidgetKeySummary(row), key };
}

export function notCustomerFacing(agentName: string): string {
  return `agent "${agentName}" is not customer-facing; a widget key needs a customer-facing agent (set customer_facing: true)`;
}

/** Revokes a key; revoking it again keeps the first revocation time. */
export async function revokeWidgetKey(
  db: DbOrTx,
  keyId: string,
): Promise<WidgetKeySummary & { already_revoked: boolean }> {
  const row = await findWidgetKey(db, keyId);
  if (!row) throw new AdminError(`widget key ${keyId} not found`);
  if (row.revokedAt) return { ...toWidgetKeySummary(row), already_revoked: true };
  return { ...toWidgetKeySummary(await revokeWidgetKeyOnce(db, keyId)), already_revoked: false };
}

export async function listWidgetKeys(db: DbOrTx, orgId: string): Promise<WidgetKeySummary[]> {
  return (await listWidgetKeyRows(db, orgId)).map(toWidgetKeySummary);
}

export function toWidgetKeySummary(k: WidgetKey): WidgetKeySummary {
  return {
    id: k.id,
    org_id: k.orgId,
    agent_id: k.agentId,
    name: k.name,
    prefix: k.prefix,
    origins: k.origins,
    created_at: k.createdAt.toISOString(),
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}
