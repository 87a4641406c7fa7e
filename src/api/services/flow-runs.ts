import { createHash } from 'node:crypto';
import {
  bindFlowTask,
  findFlow,
  findFlowEvent,
  findRecordedFlowEvent,
  flowHasUnfinishedRun,
  recordFlowEvent,
  setFlowEventOutcome,
  taskOfKey,
  type FlowPayload,
  type LoadedFlow,
} from '../../db/flows.ts';
import { renderTemplate, type CronConfig } from '../../shared/flows.ts';
import type { ApiDeps } from '../deps.ts';
import { DomainError, invalid, notFound } from '../../shared/domain-error.ts';
import { startRun } from './start-run.ts';

type FlowDeps = Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>;

export type { FlowPayload, LoadedFlow };

/** The enabled flow of `kind` with this id (not found otherwise: ids of other kinds are not revealed). */
export async function inboundFlow(
  db: ApiDeps['db'],
  flowId: string,
  kind: string,
): Promise<LoadedFlow & { secret: string }> {
  const flow = await findFlow(db, flowId);
  if (!flow || flow.kind !== kind || !flow.enabled || !flow.secret) throw notFound(`No enabled ${kind} flow ${flowId}`);
  return flow as LoadedFlow & { secret: string };
}

export interface FlowRunOutcome {
  task_id: string | null;
  run_id: string | null;
  /** True when the flow had this event already: nothing new was started. */
  duplicate: boolean;
  /** Why no run was started (a cron tick skipped by its overlap policy). */
  skipped?: string;
}

/**
 * Takes one trigger event of a flow: records it under its external id (a repeat starts nothing
 * and answers with the first one's run), renders the user message, and starts the run as the
 * flow's user, continuing the task of its key if the flow has one (queued behind a busy run).
 */
export async function acceptFlowEvent(
  deps: FlowDeps,
  flow: LoadedFlow,
  externalId: string,
  payload: FlowPayload,
  payloadHash?: string,
): Promise<FlowRunOutcome> {
  const taskKey = flow.taskKeyTemplate ? renderTemplate(flow.taskKeyTemplate, payload) || null : null;
  const fresh = await recordFlowEvent(deps.db, { flowId: flow.id, externalId, payload, taskKey, payloadHash });
  if (!fresh) {
    const earlier = await findRecordedFlowEvent(deps.db, flow.id, externalId, payloadHash);
    if (earlier?.runId || earlier?.error) return { task_id: earlier.taskId, run_id: earlier.runId, duplicate: true };
    // Still starting (its request died, or runs now): start it under the id it was recorded with.
    if (earlier) return startFlowEventRun(deps, flow, earlier.externalId, earlier.payload, earlier.taskKey, true);
  }
  return startFlowEventRun(deps, flow, externalId, payload, taskKey, !fresh);
}

/** Starts the run of a recorded event (idempotent: the event's key names at most one run). */
export async function startFlowEventRun(
  deps: FlowDeps,
  flow: LoadedFlow,
  externalId: string,
  payload: unknown,
  taskKey: string | null,
  duplicate = false,
): Promise<FlowRunOutcome> {
  const { db } = deps;
  if (
    flow.kind === 'cron' &&
    (flow.config as CronConfig).overlap === 'skip' &&
    (await flowHasUnfinishedRun(db, flow.id))
  ) {
    const skipped = 'a run this flow started is still unfinished (overlap: skip)';
    await setFlowEventOutcome(db, flow.id, externalId, { error: skipped });
    return { task_id: null, run_id: null, duplicate, skipped };
  }
  const key = taskKey ?? (flow.kind === 'cron' && (flow.config as CronConfig).overlap === 'enqueue' ? 'cron' : null);
  const taskId = key === null ? undefined : await taskOfKey(db, flow.id, key);
  const message = renderTemplate(flow.messageTemplate, payload).trim();
  if (!message) throw invalid(`Flow ${flow.name}'s message template gave an empty message for this event`);
  const digest = createHash('sha256').update(`${flow.id}\n${externalId}`).digest('hex');
  const source = { flow_id: flow.id, flow_name: flow.name, kind: flow.kind, external_id: externalId };
  try {
    const run = await startRun(
      deps as ApiDeps,
      { userId: flow.user.id, orgId: flow.orgId, role: flow.user.role },
      {
        id: flow.agent.id,
        orgId: flow.orgId,
        name: flow.agent.name,
        customerFacing: flow.agent.customerFacing,
        modelSettings: flow.agent.modelSettings,
      },
      {
        messages: [{ role: 'user', content: message }],
        mode: 'auto',
        stream: false,
        multitask_strategy: taskId ? 'enqueue' : 'reject',
        ...(taskId ? { task_id: taskId } : {}),
      },
      { key: `flow-${digest.slice(0, 48)}`, requestHash: digest },
      { source: { kind: flow.kind, flow_name: flow.name, external_id: externalId }, taskSource: source },
    );
    await bindFlowTask(db, { flowId: flow.id, key, taskId: run.taskId });
    await setFlowEventOutcome(db, flow.id, externalId, { taskId: run.taskId, runId: run.runId });
    return { task_id: run.taskId, run_id: run.runId, duplicate };
  } catch (err) {
    // A refusal (no credits, a deleted task…) is final for this event; anything else is retried by the dispatcher.
    if (err instanceof DomainError && err.kind !== 'unavailable')
      await setFlowEventOutcome(db, flow.id, externalId, { error: err.message });
    throw err;
  }
}

/** The dispatcher's pass over an event recorded without a run (a cron tick, or a request that died first). */
export async function startRecordedFlowEvent(deps: FlowDeps, flowId: string, externalId: string): Promise<void> {
  const [flow, event] = await Promise.all([findFlow(deps.db, flowId), findFlowEvent(deps.db, flowId, externalId)]);
  if (!flow || !event || event.runId || event.error) return;
  if (!flow.enabled) {
    await setFlowEventOutcome(deps.db, flowId, externalId, { error: 'the flow is disabled' });
    return;
  }
  await startFlowEventRun(deps, flow, externalId, event.payload, event.taskKey);
}
