import { proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities.ts';

const { floorActivity } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/**
 * The floor: a bare workflow that runs one activity and returns when it started.
 * No Temporal-based service can answer faster than this on the same server.
 */
export async function floorWorkflow(): Promise<number> {
  return await floorActivity();
}
