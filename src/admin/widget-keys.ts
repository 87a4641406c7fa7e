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

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const LABEL = '[a-z0-9]([a-z0-9-]*[a-z0-9])?';
/**
 * http(s)://host[:port][/]: a lowercase DNS name whose last label starts with a letter (a numeric one
 * would be read as an IPv4 address), a dotted-quad IPv4 address or [::1], and a port without leading zeros.
 */
const ORIGIN = new RegExp(
  `^https?://((${LABEL}\\.)*[a-z]([a-z0-9-]*[a-z0-9])?|(${OCTET}\\.){3}${OCTET}|\\[::1\\])` +
    '(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?/?$',
);

/**
 * A browser origin as the `Origin` header sends it, stored as the URL standard serializes it (a
 * default port or a trailing slash dropped), so the gateway's exact comparison matches.
 */
export const originSchema = z
  .string()
  .regex(ORIGIN, 'must be an origin like https://shop.example.com (scheme, lowercase host and port only)')
  // The pattern admits `xn--` labels that are not valid punycode; the URL parser refuses them.
  .refine((v) => URL.canParse(v), 'must be a host the URL standard accepts')
  .transform((v) => new URL(v).origin)
  .describe(
    'A browser origin as the Origin header sends it: http(s)://host[:port], lowercase host, no path. A default port ' +
      'or a trailing slash is dropped',
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
