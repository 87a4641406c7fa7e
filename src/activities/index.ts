import type { ActivityDeps } from './deps.ts';
import { createModelStepActivities } from './model-step.ts';
import { createRunProgressActivities } from './run-progress.ts';
import { createRunToolActivities } from './run-tool.ts';

/** Every activity of the worker, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRunProgressActivities(deps),
    ...createModelStepActivities(deps),
    ...createRunToolActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
