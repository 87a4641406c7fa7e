import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import type { Db } from '../db/client.ts';
import { findRunOwner } from '../db/runs.ts';

type Fields = Record<string, unknown>;

const store = new AsyncLocalStorage<Fields>();

/** The log fields of the activity the current code runs in (a pino mixin); none outside activities. */
export const activityLogFields = (): Fields => store.getStore() ?? {};

/** The org, task and agent ids of a run this worker has run an activity of (no lookup: for loggers). */
export const knownOwnerOf = (runId: string): Fields | undefined => owners.get(runId);

/** Run → org, task and agent ids, learnt once per run and worker (runs never move). */
const owners = new Map<string, Fields>();
const OWNERS_KEPT = 2000;

/**
 * The ids come with the activity's input when it carries all three (a tool call does);
 * otherwise they are looked up, once per run, on the run's first activity here.
 */
async function ownerOf(db: Db, runId: string, args: unknown[]): Promise<Fields> {
  const known = owners.get(runId);
  if (known) return known;
  const fields = ownerInInput(args[0]) ?? (await findRunOwner(db, runId).catch(() => null));
  if (!fields) return {};
  if (owners.size >= OWNERS_KEPT) owners.delete(owners.keys().next().value!);
  owners.set(runId, fields);
  return fields;
}

function ownerInInput(input: unknown): Fields | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { orgId, taskId, agentId } = input as Record<string, unknown>;
  if (typeof orgId !== 'string' || typeof taskId !== 'string' || typeof agentId !== 'string') return undefined;
  return { orgId, taskId, agentId };
}

/**
 * Every log line written while an activity runs carries its run's ids: `runId` and
 * `workflowId` (the same: a run is one workflow), `orgId`, `taskId`, `agentId`, the
 * activity type and attempt. Activities log through the process logger; this
 * interceptor puts the fields where its mixin finds them.
 */
export function logContextInterceptor(db: Db) {
  return (ctx: ActivityContext): { inbound: ActivityInboundCallsInterceptor } => ({
    inbound: {
      async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
        const { workflowExecution, activityType, attempt } = ctx.info;
        const runId = workflowExecution?.workflowId;
        if (!runId) return next(input); // not started by a workflow
        const fields = { runId, workflowId: runId, activityType, attempt, ...(await ownerOf(db, runId, input.args)) };
        return store.run(fields, () => next(input));
      },
    },
  });
}
