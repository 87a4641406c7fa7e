import { proxyActivities, proxyLocalActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { RunStatusAttr } from '../../src/shared/search-attributes.ts';
import type { FloorActivities } from './activities.ts';

const { floorActivity } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/**
 * The floor: a bare workflow that runs one activity and returns when it started.
 * No Temporal-based service can answer faster than this on the same server.
 */
export async function floorWorkflow(): Promise<number> {
  return await floorActivity();
}

/**
 * The same with a local activity (run by the worker inside the workflow task, no task-queue round
 * trip): what the floor would be if a run's model step were a local activity
 * (`npm run bench:local-floor`, docs/performance.md).
 */
export async function localFloorWorkflow(): Promise<number> {
  return await local.floorActivity();
}

/**
 * The floor plus what our run adds on the server's side at its end: the `RunStatus` search
 * attribute's change and the current details (bench/temporal-cost.ts).
 */
export async function floorWithEndWorkflow(): Promise<number> {
  const started = await floorActivity();
  upsertSearchAttributes([{ key: RunStatusAttr, value: 'completed' }]);
  setCurrentDetails(`**Run** status: \`completed\``);
  return started;
}
