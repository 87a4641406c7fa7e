import { createHash } from 'node:crypto';
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  type ScheduleOptions,
} from '@temporalio/client';
import {
  listCronFlows,
  listRepliesDue,
  listUnstartedFlowEvents,
  markReplyStarted,
  markScheduleSynced,
} from '../../db/flows.ts';
import { flowScheduleId, type CronConfig } from '../../shared/flows.ts';
import { runPriority } from '../../shared/run-priority.ts';
import { flowReplyWorkflow, flowTickWorkflow } from '../../workflows/index.ts';
import type { ApiDeps } from '../deps.ts';
import { every } from './every.ts';
import { startRecordedFlowEvent } from '../services/flow-runs.ts';

const BATCH = 100;
/** An event younger than this may still be starting in the request that received it. */
const EVENT_GRACE_MS = 2_000;

type Deps = Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>;

/**
 * The api's flow loop (every api runs one; each step is idempotent): keeps each cron flow's
 * Temporal Schedule in step with its settings, starts the runs of recorded events that have none
 * (cron ticks), and starts the workflow that posts a finished messaging run's answer back.
 */
export function startFlowDispatcher(deps: Deps): { stop(): Promise<void> } {
  return every(deps.config.webhooks.dispatchIntervalMs, async () => {
    for (const step of [syncFlowSchedules, startUnstartedFlowEvents, startDueReplies]) {
      try {
        await step(deps);
      } catch (err) {
        deps.logger.warn({ err, step: step.name }, 'flow dispatch step failed; retrying on the next pass');
      }
    }
  });
}

export async function startUnstartedFlowEvents(deps: Deps): Promise<void> {
  const events = await listUnstartedFlowEvents(deps.db, BATCH, new Date(Date.now() - EVENT_GRACE_MS));
  for (const event of events) {
    await startRecordedFlowEvent(deps, event.flowId, event.externalId).catch((err: unknown) =>
      deps.logger.warn({ err, ...event }, 'could not start a flow event’s run yet'),
    );
  }
}

export async function startDueReplies({ db, temporal, config }: Deps): Promise<void> {
  for (const { orgId, ...due } of await listRepliesDue(db, BATCH)) {
    const digest = createHash('sha256').update(`${due.flowId}\n${due.externalId}`).digest('hex').slice(0, 40);
    try {
      await temporal.workflow.start(flowReplyWorkflow, {
        taskQueue: config.temporal.taskQueue,
        workflowId: `flow-reply-${digest}`,
        // The org is its fairness key, as for the org's runs.
        priority: runPriority(orgId, 'flow'),
        args: [due],
        staticSummary: `Answer of flow ${due.flowId} to ${due.externalId}`,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    await markReplyStarted(db, due.flowId, due.externalId);
  }
}

/** Writes each cron flow's schedule to Temporal when its settings changed since the last write. */
export async function syncFlowSchedules({ db, temporal, config }: Deps): Promise<void> {
  for (const flow of await listCronFlows(db)) {
    const cron = flow.config as CronConfig;
    const wanted = JSON.stringify({ cron, enabled: flow.enabled, queue: config.temporal.taskQueue });
    if (flow.scheduleSynced === wanted) continue;
    const options: ScheduleOptions = {
      scheduleId: flowScheduleId(flow.id),
      spec:
        typeof cron.schedule === 'string'
          ? { cronExpressions: [cron.schedule], timezone: cron.timezone }
          : { intervals: [{ every: cron.schedule.every_seconds * 1000 }], timezone: cron.timezone },
      action: {
        type: 'startWorkflow',
        workflowType: flowTickWorkflow,
        args: [{ flowId: flow.id }],
        taskQueue: config.temporal.taskQueue,
        workflowId: `flow-tick-${flow.id}`,
      },
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: cron.catchup_window_seconds * 1000 },
      state: {
        paused: !flow.enabled,
        note: flow.enabled ? `cron flow "${flow.name}"` : `cron flow "${flow.name}" is disabled`,
      },
      memo: { flowName: flow.name, orgId: flow.orgId, agentId: flow.agentId },
    };
    try {
      await temporal.schedule.create(options);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      const handle = temporal.schedule.getHandle(options.scheduleId);
      await handle.update((previous) => ({
        ...previous,
        spec: options.spec,
        action: options.action,
        policies: { ...previous.policies, ...options.policies },
        state: { ...previous.state, paused: !flow.enabled, note: options.state?.note },
      }));
    }
    await markScheduleSynced(db, flow.id, wanted);
  }
}
