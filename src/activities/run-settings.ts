import type { RunSettings } from '../shared/run-workflow-types.ts';
import { runSettingsFrom } from '../shared/run-settings.ts';
import type { ActivityDeps } from './deps.ts';

export function createRunSettingsActivities({ db }: ActivityDeps) {
  return {
    /** The agent's run policy, for runs started without it (by the reconciler, or by an api from before it came with the start). */
    async loadRunSettings({ agentId }: { agentId: string }): Promise<RunSettings> {
      const agent = await db.agent.findUniqueOrThrow({ where: { id: agentId }, select: { modelSettings: true } });
      return runSettingsFrom(agent.modelSettings);
    },

    /** Whether an owner or admin chose "approve always" for this agent's tool in the org. */
    async hasStandingGrant({ orgId, agentId, toolName }: { orgId: string; agentId: string; toolName: string }): Promise<boolean> {
      return (await db.approvalGrant.count({ where: { orgId, agentId, toolName, revokedAt: null } })) > 0;
    },
  };
}
