import { findAgentByName } from '../db/agents.ts';
import type { Tx } from '../db/client.ts';
import {
  findActiveWidgetKeyNamed,
  revokeWidgetKeyOnce,
  updateWidgetKeyCredits,
  updateWidgetKeyOrigins,
} from '../db/widget-keys.ts';
import type { ApplyOrg } from './apply-file.ts';
import { AdminError } from './errors.ts';
import { createWidgetKey, notCustomerFacing } from './widget-keys.ts';

export interface AppliedWidgetKey {
  name: string;
  /** The key's id; empty when the file revokes a key that does not exist. */
  id: string;
  prefix: string;
  origins: string[];
  revoked: boolean;
  /** The full key: only present when the key was created by this apply. */
  key?: string;
}

/**
 * The `widget_keys` of one org: creates a missing key, keeps an existing one's
 * origins in sync, revokes one marked `revoked: true`. A key for an agent that
 * is not customer-facing is refused, also when the key already exists.
 */
export async function applyWidgetKeys(
  tx: Tx,
  orgId: string,
  specs: ApplyOrg['widget_keys'],
  path: string,
  label: string,
  changes: string[],
) {
  const applied: AppliedWidgetKey[] = [];
  for (const [i, spec] of specs.entries()) {
    const existing = await findActiveWidgetKeyNamed(tx, orgId, spec.name);
    if (spec.revoked) {
      if (existing) {
        await revokeWidgetKeyOnce(tx, existing.id);
        changes.push(`revoked widget key "${spec.name}" ${label} (${existing.id})`);
      }
      applied.push({
        name: spec.name,
        id: existing?.id ?? '',
        prefix: existing?.prefix ?? '',
        origins: existing?.origins ?? spec.origins,
        revoked: true,
      });
      continue;
    }
    const agent = await findAgentByName(tx, orgId, spec.agent);
    if (!agent) throw new AdminError(`${path}.${i}.agent: no agent named "${spec.agent}" ${label}`);
    if (!agent.customerFacing) throw new AdminError(`${path}.${i}.agent: ${notCustomerFacing(agent.name)}`);
    const origins = [...new Set(spec.origins)];
    if (!existing) {
      const created = await createWidgetKey(tx, { orgId, agentId: agent.id, name: spec.name, origins });
      if (spec.credits_per_day !== undefined) await updateWidgetKeyCredits(tx, created.id, spec.credits_per_day);
      changes.push(`created widget key "${spec.name}" for agent "${agent.name}" ${label} (${created.id})`);
      applied.push({
        name: spec.name,
        id: created.id,
        prefix: created.prefix,
        origins,
        revoked: false,
        key: created.key,
      });
      continue;
    }
    if (existing.agentId !== agent.id) {
      throw new AdminError(
        `${path}.${i}.agent: widget key "${spec.name}" belongs to another agent; revoke it and create a new one`,
      );
    }
    if (existing.origins.join('\n') !== origins.join('\n')) {
      await updateWidgetKeyOrigins(tx, existing.id, origins);
      changes.push(
        `updated widget key "${spec.name}" ${label}: origins ${existing.origins.join(',')} → ${origins.join(',')}`,
      );
    }
    const creditsPerDay = spec.credits_per_day ?? null;
    if (existing.creditsPerDay !== creditsPerDay) {
      await updateWidgetKeyCredits(tx, existing.id, creditsPerDay);
      changes.push(
        `updated widget key "${spec.name}" ${label}: credits_per_day ${existing.creditsPerDay ?? 'default'} → ${creditsPerDay ?? 'default'}`,
      );
    }
    applied.push({ name: spec.name, id: existing.id, prefix: existing.prefix, origins, revoked: false });
  }
  return applied;
}
