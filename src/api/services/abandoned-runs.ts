import { activeRunsAmong, storeAbandonedRunEnd } from '../../db/abandoned-runs.ts';
import { runsToAdmit } from '../../db/run-slots.ts';
import { runErrorCodes } from '../../shared/run-error-codes.ts';
import { slotFreedSignal } from '../../workflows/run-messages.ts';
import type { ApiDeps } from '../deps.ts';
import { runsEndedByApi } from '../metrics.ts';

/**
 * How a run's workflow can close without storing the run's end: an operator terminated it (Temporal
 * Web UI, `temporal workflow terminate`), or a timeout or a failure outside the run's own handling.
 */
const CLOSED_WITHOUT_END = ['Terminated', 'TimedOut', 'Failed', 'Canceled'] as const;

/**
 * Ends the runs whose workflows closed since `since` without storing an end (their status would stay
 * active for ever, their streams open, and a limited org's slot held): failed with a RUN_ERROR that
 * says how the workflow closed, their questions cancelled; then the org's waiting runs are told a slot
 * is free. Found through Temporal's visibility: one list a pass, and one database read when it lists any.
 */
export async function endAbandonedRuns(
  deps: Pick<ApiDeps, 'db' | 'temporal' | 'logger'>,
  since: Date,
): Promise<number> {
  const closed = CLOSED_WITHOUT_END.map((status) => `ExecutionStatus = '${status}'`).join(' OR ');
  const query = `WorkflowType = 'agentRun' AND CloseTime >= '${since.toISOString()}' AND (${closed})`;
  const closedRuns = new Map<string, string>();
  for await (const workflow of deps.temporal.workflow.list({ query }))
    closedRuns.set(workflow.workflowId, workflow.status.name);
  // Most were ended on an earlier pass (the window overlaps) or by their workflow: only the active ones cost more.
  let ended = 0;
  for (const [runId, orgId] of await activeRunsAmong(deps.db, [...closedRuns.keys()])) {
    // A reset (Temporal Web UI) terminates the run it replaces: the workflow goes on in its new run.
    if (await goesOn(deps, runId)) continue;
    const workflowStatus = closedRuns.get(runId)!;
    const how = workflowStatus.toLowerCase().replace('_', ' ');
    const message = `The run's workflow was ${how} in Temporal before the run ended`;
    const mode = await storeAbandonedRunEnd(deps.db, runId, { code: runErrorCodes.execution, message });
    if (mode === undefined) continue;
    ended++;
    runsEndedByApi.inc({ status: 'failed', mode });
    deps.logger.warn({ runId, workflowStatus }, 'ended a run its workflow left');
    for (const waiting of await runsToAdmit(deps.db, orgId))
      await deps.temporal.workflow
        .getHandle(waiting)
        .signal(slotFreedSignal)
        .catch(() => undefined); // a run that ended meanwhile was waiting, so it held no slot
  }
  return ended;
}

/** Whether the workflow's latest run is still open (a reset or a continue-as-new made it). */
async function goesOn({ temporal }: Pick<ApiDeps, 'temporal'>, workflowId: string): Promise<boolean> {
  const latest = await temporal.workflow.getHandle(workflowId).describe();
  return latest.status.name === 'RUNNING';
}
