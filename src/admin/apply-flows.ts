import { randomBytes } from 'node:crypto';
import { findAgentByName } from '../db/agents.ts';
import type { Tx } from '../db/client.ts';
import { findFlowNamed, insertFlow, updateFlow, type FlowFields } from '../db/flows.ts';
import { orgSecretExists } from '../db/org-secrets.ts';
import { listUsersOfOrg } from '../db/users.ts';
import { newId } from '../shared/ids.ts';
import type { ApplyOrg } from './apply-file.ts';
import { newWebhookSecret } from './apply-webhooks.ts';
import { AdminError } from './errors.ts';
import { mayActAs, type Actor } from './org-roles.ts';
import { stableJson } from './stable-json.ts';

export interface AppliedFlow {
  name: string;
  id: string;
  kind: string;
  /** The flow's inbound path (webhook, repository, email, messaging). */
  path?: string;
  /** The secret: only present when this apply created the flow with a generated one. */
  secret?: string;
}

/** The inbound path of a flow, by kind (src/api/routes/flows.ts serves them). */
export function inboundPath(kind: string, id: string): string | undefined {
  const suffix = { webhook: 'webhook', repository: 'github', email: 'email', messaging: 'slack' }[kind];
  return suffix && `/api/v1/flows/${id}/${suffix}`;
}

function generatedSecret(kind: string): string | null {
  if (kind === 'webhook' || kind === 'email') return newWebhookSecret();
  if (kind === 'repository') return randomBytes(32).toString('hex');
  return null; // cron: none; messaging: Slack's own, required in the file
}

/**
 * Creates and updates the org's flows named in the file (by name); never deletes one
 * (`enabled: false` stops it). A messaging flow's agent must be customer-facing.
 */
export async function applyFlows(
  tx: Tx,
  org: { id: string; name: string },
  spec: Pick<ApplyOrg, 'flows'>,
  path: string,
  changes: string[],
  /** A signed-in user applying through the api; the CLI (the operator) has none. */
  actor?: Actor,
): Promise<AppliedFlow[]> {
  const applied: AppliedFlow[] = [];
  const members = await listUsersOfOrg(tx, org.id);
  const users = new Map(members.map((u) => [u.email, u.id]));
  const roleOf = new Map(members.map((u) => [u.id, u.role as string]));
  for (const [i, flow] of spec.flows.entries()) {
    const at = `${path}.flows.${i}`;
    const agent = await findAgentByName(tx, org.id, flow.agent);
    if (!agent) throw new AdminError(`${at}.agent: no agent named "${flow.agent}" in org "${org.name}"`);
    if (flow.kind === 'messaging' && !agent.customerFacing) {
      throw new AdminError(
        `${at}.agent: agent "${flow.agent}" is not customer-facing; a messaging flow may only use a customer-facing agent`,
      );
    }
    if (flow.messaging && !(await orgSecretExists(tx, org.id, flow.messaging.bot_token_secret))) {
      throw new AdminError(
        `${at}.messaging.bot_token_secret: org "${org.name}" has no secret named ${flow.messaging.bot_token_secret} (set it first: PUT /api/admin/secrets/{name} or \`admin secret set\`)`,
      );
    }
    const userId = users.get(flow.user);
    if (!userId) throw new AdminError(`${at}.user: no user with email ${flow.user} in org "${org.name}"`);
    const wanted: FlowFields = {
      name: flow.name,
      kind: flow.kind,
      agentId: agent.id,
      userId,
      enabled: flow.enabled ?? true,
      senderAccess: flow.sender_access ?? 'guest',
      messageTemplate: flow.message,
      taskKeyTemplate: flow.task_key ?? null,
      config: flow.cron ?? flow.repository ?? flow.messaging ?? {},
    };
    const current = await findFlowNamed(tx, org.id, flow.name);
    if (!current) {
      if (flow.kind === 'messaging' && !flow.secret)
        throw new AdminError(`${at}.secret: a messaging flow needs Slack's signing secret`);
      const secret = flow.secret ?? generatedSecret(flow.kind);
      const created = await insertFlow(tx, { id: newId('flw'), orgId: org.id, secret, ...wanted });
      applied.push({
        name: flow.name,
        id: created.id,
        kind: flow.kind,
        path: inboundPath(flow.kind, created.id),
        ...(flow.secret || !secret ? {} : { secret }),
      });
      changes.push(`created ${flow.kind} flow "${flow.name}" in org "${org.name}" (${created.id})`);
      continue;
    }
    if (current.kind !== flow.kind)
      throw new AdminError(
        `${at}.kind: flow "${flow.name}" is a ${current.kind} flow; a flow's kind cannot change (give the new one another name)`,
      );
    const change: Partial<FlowFields> & { secret?: string } = {};
    for (const key of ['agentId', 'userId', 'enabled', 'senderAccess', 'messageTemplate', 'taskKeyTemplate'] as const) {
      if (current[key] !== wanted[key]) Object.assign(change, { [key]: wanted[key] });
    }
    if (stableJson(current.config) !== stableJson(wanted.config)) change.config = wanted.config;
    if (flow.secret !== undefined && flow.secret !== current.secret) change.secret = flow.secret;
    if (Object.keys(change).length > 0) {
      // A flow's runs act as its user: changing what an owner's flow does is acting as that owner.
      if (actor && !mayActAs(actor.role, roleOf.get(current.userId) ?? '')) {
        throw new AdminError(
          `${at}: only an owner may change a flow whose runs act as an owner (${flow.name})`,
          'forbidden',
        );
      }
      await updateFlow(tx, current.id, change);
      changes.push(`updated flow "${flow.name}" in org "${org.name}": ${Object.keys(change).join(', ')}`);
    }
    applied.push({ name: flow.name, id: current.id, kind: flow.kind, path: inboundPath(flow.kind, current.id) });
  }
  return applied;
}
