import type { ActivityDeps } from './deps.ts';
import { createModelStepActivities } from './model-step.ts';
import { createPlanStepActivities } from './plan-step.ts';
import { createRunProgressActivities } from './run-progress.ts';
import { createRunSettingsActivities } from './run-settings.ts';
import { createRunSlotActivities } from './run-slots.ts';
import { createRunToolActivities } from './run-tool.ts';
import { createSandboxActivities } from './sandbox-activities.ts';
import { createSandboxLeaseActivities } from './sandbox-lease.ts';
import { createFlowActivities } from './flows.ts';
import { createWebhookActivities } from './webhooks.ts';
import { createToolServerActivities } from './mcp/tool-server-activities.ts';

/** Every activity of the worker, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRunProgressActivities(deps),
    ...createModelStepActivities(deps),
    ...createPlanStepActivities(deps),
    ...createRunToolActivities(deps),
    ...createRunSettingsActivities(deps),
    ...createRunSlotActivities(deps),
    ...createSandboxActivities(deps),
    ...createSandboxLeaseActivities(deps),
    ...createWebhookActivities(deps),
    ...createFlowActivities(deps),
    ...createToolServerActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
