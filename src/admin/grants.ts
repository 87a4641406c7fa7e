import {
  findGrant,
  insertGrantOnce,
  listGrants as listGrantRows,
  revokeGrantOnce,
  type ApprovalGrant,
  type GrantFilter,
} from '../db/approvals.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { agentModelSettingsSchema, type AgentModelSettings } from '../shared/agent-settings.ts';
import { newId } from '../shared/ids.ts';
import { isOrgAdmin } from '../shared/roles.ts';
import { policyNames, SERVER_TOOL_SEPARATOR, serverToolName } from '../shared/tool-server-names.ts';
import { toolCatalog } from '../shared/tools/index.ts';
import { AdminError } from './errors.ts';
import { requireAgent, requireMember } from './agents.ts';
import { requireOrg } from './orgs.ts';

/**
 * Standing approval grants ("approve always"): while a grant is active (not
 * revoked), calls of its tool by its agent in its org run without an approval
 * gate. Runs create them when an approver answers with approve_always; the
 * admin console lists, revokes and pre-approves them.
 */
export interface GrantSummary {
  id: string;
  org_id: string;
  agent_id: string;
  tool_name: string;
  /** User id of whoever approved always (or was recorded by `grant create`). */
  granted_by: string;
  created_at: string;
  revoked_at: string | null;
}

export async function listGrants(db: DbOrTx, filter: GrantFilter = {}): Promise<GrantSummary[]> {
  if (filter.orgId !== undefined) await requireOrg(db, filter.orgId);
  if (filter.agentId !== undefined) await requireAgent(db, filter.agentId);
  const rows = await listGrantRows(db, filter);
  return rows.map(toSummary);
}

export interface CreateGrantInput {
  agentId: string;
  toolName: string;
  /** The user on whose authority the tool is pre-approved; a member of the agent's org. */
  grantedBy: string;
}

/**
 * Pre-approves a tool for an agent, as if an approver had answered "approve
 * always". An active grant for the same agent and tool is returned instead of
 * a duplicate. Sensitive-class tools need an owner or admin as `grantedBy`,
 * the same rule the api applies to approving them.
 */
export async function createGrant(
  db: Db,
  input: CreateGrantInput,
): Promise<GrantSummary & { already_granted: boolean }> {
  const agent = await requireAgent(db, input.agentId);
  const parsed = agentModelSettingsSchema.safeParse(agent.modelSettings ?? {});
  const settings = parsed.success ? parsed.data : {};
  const tool = grantableTool(input.toolName, settings);
  const user = await requireMember(db, agent.orgId, input.grantedBy);
  if (isSensitive(tool.name, tool.sensitive, settings) && !isOrgAdmin(user.role)) {
    throw new AdminError(
      `${tool.name} is a sensitive tool: only an owner or admin of org ${agent.orgId} may grant it, ${user.id} is a ${user.role}`,
    );
  }
  const { grant, created } = await insertGrantOnce(db, {
    id: newId('grt'),
    orgId: agent.orgId,
    agentId: agent.id,
    toolName: tool.name,
    grantedBy: user.id,
  });
  return { ...toSummary(grant), already_granted: !created };
}

/** Revokes a grant. Revoking an already revoked grant keeps its original revocation time. */
export async function revokeGrant(db: DbOrTx, grantId: string): Promise<GrantSummary & { already_revoked: boolean }> {
  const row = await findGrant(db, grantId);
  if (!row) throw new AdminError(`grant ${grantId} not found`);
  if (row.revokedAt) return { ...toSummary(row), already_revoked: true };
  const updated = await revokeGrantOnce(db, grantId);
  return { ...toSummary(updated), already_revoked: false };
}

/**
 * A built-in tool, or `<server>__<tool>` of one of the agent's tool servers (within its `allowed_tools`).
 * A server's tools are listed only when a run starts, so any other tool name of a server is taken on trust.
 */
function grantableTool(toolName: string, settings: AgentModelSettings): { name: string; sensitive?: boolean } {
  const builtIn = toolCatalog.get(toolName);
  if (builtIn) return builtIn;
  const at = toolName.indexOf(SERVER_TOOL_SEPARATOR);
  const servers = settings.tool_servers ?? [];
  const server = at > 0 ? servers.find((s) => s.name === toolName.slice(0, at)) : undefined;
  const own = toolName.slice(at + SERVER_TOOL_SEPARATOR.length);
  if (server && serverToolName(server.name, own) === toolName && (server.allowed_tools?.includes(own) ?? true)) {
    return { name: toolName };
  }
  const serverTools = servers.map((s) => `${s.name}__<tool>`);
  throw new AdminError(
    `unknown tool "${toolName}"; known tools: ${[...[...toolCatalog.keys()].sort(), ...serverTools].join(', ')}`,
  );
}

/** Sensitive by the catalog or by the agent's own settings (`sensitive_tools`, `<server>__*`), as runs decide it. */
function isSensitive(toolName: string, catalogSensitive: boolean | undefined, settings: AgentModelSettings): boolean {
  return Boolean(catalogSensitive) || policyNames(settings.sensitive_tools ?? [], toolName);
}

function toSummary(g: ApprovalGrant): GrantSummary {
  return {
    id: g.id,
    org_id: g.orgId,
    agent_id: g.agentId,
    tool_name: g.toolName,
    granted_by: g.grantedBy,
    created_at: g.createdAt.toISOString(),
    revoked_at: g.revokedAt?.toISOString() ?? null,
  };
}
