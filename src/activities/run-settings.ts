import { agentModelSettingsSchema, type AgentModelSettings } from '../shared/agent-settings.ts';
import type { RunSettings } from '../shared/run-workflow-types.ts';
import { toolCatalog } from '../shared/tools/index.ts';
import { runCommandTool } from '../shared/tools/sandbox.ts';
import type { ActivityDeps } from './deps.ts';

export const DEFAULT_MAX_STEPS = 10;

/** The agent's list, plus run_command unless the agent turned its default gate off (`sandbox.run_command_approval: false`). */
function approvalRequiredTools(s: AgentModelSettings): string[] {
  const tools = new Set(s.approval_required_tools ?? []);
  if (s.sandbox?.run_command_approval !== false) tools.add(runCommandTool.name);
  return [...tools];
}

export function createRunSettingsActivities({ db }: ActivityDeps) {
  return {
    /** The agent's run policy, read once when a run starts (changes apply to later runs). */
    async loadRunSettings({ agentId }: { agentId: string }): Promise<RunSettings> {
      const agent = await db.agent.findUniqueOrThrow({ where: { id: agentId }, select: { modelSettings: true } });
      const parsed = agentModelSettingsSchema.safeParse(agent.modelSettings ?? {});
      const s = parsed.success ? parsed.data : {};
      const catalogSensitive = [...toolCatalog.values()].filter((t) => t.sensitive).map((t) => t.name);
      return {
        maxSteps: s.max_steps ?? DEFAULT_MAX_STEPS,
        approvalRequiredTools: approvalRequiredTools(s),
        sensitiveTools: [...new Set([...catalogSensitive, ...(s.sensitive_tools ?? [])])],
        requirePlanApproval: s.require_plan_approval ?? false,
      };
    },

    /** Whether an owner or admin chose "approve always" for this agent's tool in the org. */
    async hasStandingGrant({ orgId, agentId, toolName }: { orgId: string; agentId: string; toolName: string }): Promise<boolean> {
      return (await db.approvalGrant.count({ where: { orgId, agentId, toolName, revokedAt: null } })) > 0;
    },
  };
}
