import { agentModelSettings } from '../db/agents.ts';
import { hasActiveGrant } from '../db/approvals.ts';
import type { RunSettings } from '../shared/run-workflow-types.ts';
import { runSettingsFrom } from '../shared/run-settings.ts';
import type { ActivityDeps } from './deps.ts';

export function createRunSettingsActivities({ db }: ActivityDeps) {
  return {
    /** The agent's run policy, for runs started without it (by the reconciler, or by an api from before it came with the start). */
    async loadRunSettings({ agentId }: { agentId: string }): Promise<RunSettings> {
      return runSettingsFrom(await agentModelSettings(db, agentId));
    },

    /** Whether an owner or admin chose "approve always" for this agent's tool in the org. */
    async hasStandingGrant({
      orgId,
      agentId,
      toolName,
    }: {
      orgId: string;
      agentId: string;
      toolName: string;
    }): Promise<boolean> {
      return hasActiveGrant(db, { orgId, agentId, toolName });
    },
  };
}
