import { listAgentsWithAccess } from '../db/agents.ts';
import type { Db } from '../db/client.ts';
import { listFlowsOfOrg } from '../db/flows.ts';
import { findOrg } from '../db/orgs.ts';
import { listUsersOfOrg } from '../db/users.ts';
import { listWebhooks } from '../db/webhooks.ts';
import { listWidgetKeys } from '../db/widget-keys.ts';
import type { AgentModelSettings } from '../shared/agent-settings.ts';
import { toolCatalog } from '../shared/tools/index.ts';
import type { OrgDocument } from './apply-file.ts';
import { inboundPath } from './apply-flows.ts';
import { AdminError } from './errors.ts';

/**
 * One org's configuration (GET /api/admin/org): `document` in the shape POST /api/admin/apply
 * and `admin apply` take, so applying it back changes nothing; beside it what the document
 * has no field for (ids, a flow's inbound path, every widget key with its prefix and state).
 * No secret is read.
 */
export interface OrgConfiguration {
  id: string;
  name: string;
  credits: string;
  /** Runs of the org that may be open at once (null: unlimited); set by the operator with `admin apply`. */
  max_concurrent_runs: number | null;
  document: OrgDocument;
  users: { email: string; id: string }[];
  agents: { name: string; id: string }[];
  webhooks: { name: string; id: string }[];
  flows: { name: string; id: string; kind: string; enabled: boolean; path: string | null }[];
  /** Every widget key, revoked ones too (the document lists only unrevoked keys: a name is reused after a revoke). */
  widget_keys: {
    name: string;
    id: string;
    agent: string;
    origins: string[];
    prefix: string;
    revoked: boolean;
    created_at: string;
  }[];
  /** The tool catalog, for an agent's `tools`, `approval_required_tools` and `sensitive_tools`; `sensitive`: of the sensitive class already. */
  tools: { name: string; description: string; sensitive: boolean }[];
}

export async function exportOrg(db: Db, orgId: string): Promise<OrgConfiguration> {
  const org = await findOrg(db, orgId);
  if (!org) throw new AdminError(`no org ${orgId}`, 'not_found');
  const [users, agents, webhooks, flows, widgetKeys] = await Promise.all([
    listUsersOfOrg(db, orgId),
    listAgentsWithAccess(db, orgId),
    listWebhooks(db, orgId),
    listFlowsOfOrg(db, orgId),
    listWidgetKeys(db, orgId),
  ]);
  const email = new Map(users.map((u) => [u.id, u.email]));
  const agentName = new Map(agents.map((a) => [a.id, a.name]));
  const document: OrgDocument = {
    users: users.map((u) => ({ email: u.email, role: u.role, name: u.name })),
    agents: agents.map((a) => ({
      name: a.name,
      customer_facing: a.customerFacing,
      settings: a.modelSettings as AgentModelSettings,
      access: a.access.map((id) => email.get(id)!),
    })),
    keys: [],
    webhooks: webhooks.map((w) => ({
      name: w.name,
      url: w.url,
      events: w.events as OrgDocument['webhooks'][number]['events'],
      ...(w.agentId ? { agent: agentName.get(w.agentId)! } : {}),
      disabled: w.disabledAt !== null,
    })),
    flows: flows.map((f) => ({
      name: f.name,
      kind: f.kind as OrgDocument['flows'][number]['kind'],
      agent: f.agent.name,
      user: f.user.email,
      enabled: f.enabled,
      ...(f.senderAccess === 'user' ? { sender_access: 'user' as const } : {}),
      message: f.messageTemplate,
      ...(f.taskKeyTemplate === null ? {} : { task_key: f.taskKeyTemplate }),
      ...(f.kind === 'cron' || f.kind === 'repository' || f.kind === 'messaging' ? { [f.kind]: f.config } : {}),
    })),
    widget_keys: firstPerName(widgetKeys.filter((k) => !k.revokedAt)).map((k) => ({
      name: k.name,
      agent: agentName.get(k.agentId)!,
      origins: k.origins,
      ...(k.creditsPerDay === null ? {} : { credits_per_day: k.creditsPerDay }),
    })),
  };
  return {
    id: org.id,
    name: org.name,
    credits: org.creditBalance.toString(),
    max_concurrent_runs: org.maxConcurrentRuns,
    document,
    users: users.map((u) => ({ email: u.email, id: u.id })),
    agents: agents.map((a) => ({ name: a.name, id: a.id })),
    webhooks: webhooks.map((w) => ({ name: w.name, id: w.id })),
    flows: flows.map((f) => ({
      name: f.name,
      id: f.id,
      kind: f.kind,
      enabled: f.enabled,
      path: inboundPath(f.kind, f.id) ?? null,
    })),
    widget_keys: widgetKeys.map((k) => ({
      name: k.name,
      id: k.id,
      agent: agentName.get(k.agentId)!,
      origins: k.origins,
      prefix: k.prefix,
      revoked: k.revokedAt !== null,
      created_at: k.createdAt.toISOString(),
    })),
    tools: [...toolCatalog.values()].map((t) => ({
      name: t.name,
      description: t.description,
      sensitive: t.sensitive ?? false,
    })),
  };
}

/** The first key of each name (the one `admin apply` matches by name). */
function firstPerName<T extends { name: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.name) && seen.add(i.name));
}
