import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ToolServerCheck, ToolServerRef } from '../shared/tool-server-types.ts';

export interface ToolServerCheckInput {
  orgId: string;
  server: ToolServerRef;
}

// One attempt: the activity answers every failure of the server itself; only a lost worker is tried again.
const { checkToolServer } = proxyActivities<Activities>({
  startToCloseTimeout: '40 seconds',
  heartbeatTimeout: '15 seconds',
  retry: { maximumAttempts: 2 },
});

/**
 * "Test connection" of a tool server an admin is editing: the check runs as an activity, so it
 * connects from a worker (where runs connect from) and opens the org's secrets there, never in the api.
 */
export async function toolServerCheckWorkflow(input: ToolServerCheckInput): Promise<ToolServerCheck> {
  return checkToolServer(input);
}
