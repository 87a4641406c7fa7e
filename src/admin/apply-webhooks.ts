import { randomBytes } from 'node:crypto';
import { findAgentByName } from '../db/agents.ts';
import type { Tx } from '../db/client.ts';
import { findWebhookNamed, insertWebhook, updateWebhook, type WebhookSubscriptionFields } from '../db/webhooks.ts';
import { newId } from '../shared/ids.ts';
import { webhookEventTypes } from '../shared/webhook-delivery-types.ts';
import type { ApplyOrg } from './apply-file.ts';
import { AdminError } from './errors.ts';

export interface AppliedWebhook {
  name: string;
  id: string;
  /** The signing secret: only present when this apply created the subscription with a generated secret. */
  secret?: string;
}

/** A new Standard Webhooks signing secret: `whsec_` and base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Creates and updates the org's webhook subscriptions named in the file (by name); never
 * deletes one (`disabled: true` stops it).
 */
export async function applyWebhooks(
  tx: Tx,
  org: { id: string; name: string },
  spec: Pick<ApplyOrg, 'webhooks'>,
  path: string,
  changes: string[],
): Promise<AppliedWebhook[]> {
  const applied: AppliedWebhook[] = [];
  for (const [i, hook] of spec.webhooks.entries()) {
    const wanted: WebhookSubscriptionFields = {
      name: hook.name,
      url: hook.url,
      events: hook.events ?? [...webhookEventTypes],
      agentId: hook.agent === undefined ? null : await agentIdOf(tx, org, hook.agent, `${path}.webhooks.${i}.agent`),
      disabled: hook.disabled ?? false,
    };
    const current = await findWebhookNamed(tx, org.id, hook.name);
    if (!current) {
      const secret = hook.secret ?? newWebhookSecret();
      const created = await insertWebhook(tx, { id: newId('whs'), orgId: org.id, secret, ...wanted });
      applied.push({ name: hook.name, id: created.id, ...(hook.secret ? {} : { secret }) });
      changes.push(`created webhook "${hook.name}" in org "${org.name}" → ${hook.url} (${created.id})`);
      continue;
    }
    const change = webhookChange(current, wanted, hook.secret);
    if (Object.keys(change).length > 0) {
      await updateWebhook(tx, current.id, change);
      changes.push(`updated webhook "${hook.name}" in org "${org.name}": ${Object.keys(change).join(', ')}`);
    }
    applied.push({ name: hook.name, id: current.id });
  }
  return applied;
}

type StoredWebhook = NonNullable<Awaited<ReturnType<typeof findWebhookNamed>>>;

/** The fields of `current` that differ from the file (a secret only when the file gives one). */
function webhookChange(current: StoredWebhook, wanted: WebhookSubscriptionFields, secret: string | undefined) {
  const change: Partial<WebhookSubscriptionFields> & { secret?: string } = {};
  if (current.url !== wanted.url) change.url = wanted.url;
  if (current.events.join() !== wanted.events.join()) change.events = wanted.events;
  if (current.agentId !== wanted.agentId) change.agentId = wanted.agentId;
  if ((current.disabledAt !== null) !== wanted.disabled) change.disabled = wanted.disabled;
  if (secret !== undefined && secret !== current.secret) change.secret = secret;
  return change;
}

async function agentIdOf(tx: Tx, org: { id: string; name: string }, name: string, at: string): Promise<string> {
  const agent = await findAgentByName(tx, org.id, name);
  if (!agent) throw new AdminError(`${at}: no agent named "${name}" in org "${org.name}"`);
  return agent.id;
}
