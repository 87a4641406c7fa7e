import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

/**
 * A tick of a cron flow, started by the flow's Temporal Schedule: records the tick as the flow's
 * event (its id is this workflow's id, which the schedule makes unique per scheduled time); an api
 * then starts the run, as for every other trigger.
 */
export async function flowTickWorkflow({ flowId }: { flowId: string }): Promise<void> {
  const { recordFlowTick } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  const info = workflowInfo();
  await recordFlowTick({ flowId, tickId: info.workflowId, scheduledAt: info.startTime.toISOString() });
}

/**
 * Posts the answer of a messaging flow's run back in its Slack thread, retried with backoff for
 * a day (Slack down, rate limited); a refused token or channel ends it at once.
 */
export async function flowReplyWorkflow(input: { flowId: string; externalId: string }): Promise<void> {
  const { postFlowReply } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: '24 hours',
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '10 minutes',
      nonRetryableErrorTypes: ['SlackRefused'],
    },
  });
  await postFlowReply(input);
}
