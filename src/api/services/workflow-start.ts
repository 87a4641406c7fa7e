import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { firstRunStatus } from '../../shared/run-status.ts';
import type { ClientTool } from '../../shared/client-tools.ts';
import type { RunSettings } from '../../shared/run-workflow-types.ts';
import { AgentIdAttr, OrgIdAttr, RunModeAttr, RunStatusAttr, TaskIdAttr } from '../../shared/search-attributes.ts';
import { runPriority } from '../../shared/run-priority.ts';
import { agentRun } from '../../workflows/index.ts';
import { runSummary } from './run-summary.ts';
import type { ApiDeps } from '../deps.ts';

export interface RunWorkflowStart {
  runId: string;
  taskId: string;
  orgId: string;
  agentId: string;
  agentName: string;
  /** Who asked for the run (the task's user). */
  userId: string;
  /** The flow that started the run's task, shown on the workflow's page. */
  source?: { kind: string; flow_name: string; external_id: string };
  /** Where a run no flow started came from (api, cli, sdk, console, mcp, ag-ui, widget), shown on the workflow's page. */
  via?: string;
  mode: 'fast' | 'deep';
  routingReason: string;
  /** The agent's run policy, when the caller read it (the reconciler does not: the workflow loads it). */
  settings?: RunSettings;
  /** RUN_STARTED is stored with the run (see runStartedEvents). */
  startRecorded?: boolean;
  /** Tools the caller runs itself, offered in this run (absent: none, and the workflow's input is as before). */
  clientTools?: ClientTool[];
  /** The user's message that asked for the run; its first words name the run in the Temporal UI's list. */
  request?: string;
  /** Someone watches it stream: it goes ahead of background and flow runs in the task queues. */
  interactive?: boolean;
  /** The org's limit of concurrent runs (absent: none): the run waits `pending` for a slot (src/workflows/run-slots.ts). */
  concurrencyLimit?: number;
}

/**
 * Starts the workflow of a stored pending run (workflow id = run id). Starting one that
 * is already started (the reconciler and the request racing) is success, not an error.
 */
export async function startRunWorkflow(
  { temporal, config }: Pick<ApiDeps, 'temporal' | 'config'>,
  run: RunWorkflowStart,
): Promise<void> {
  const { runId, taskId, orgId, agentId, mode, routingReason, settings, startRecorded, clientTools, concurrencyLimit } =
    run;
  try {
    await temporal.workflow.start(agentRun, {
      taskQueue: config.temporal.taskQueue,
      workflowId: runId,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      priority: runPriority(orgId, run.interactive ? 'interactive' : run.source ? 'flow' : 'background'),
      args: [
        {
          runId,
          taskId,
          orgId,
          agentId,
          mode,
          routingReason,
          ...(settings ? { settings } : {}),
          ...(startRecorded ? { startRecorded } : {}),
          ...(clientTools ? { clientTools } : {}),
          ...(concurrencyLimit !== undefined ? { concurrencyLimit } : {}),
        },
      ],
      typedSearchAttributes: [
        { key: TaskIdAttr, value: taskId },
        { key: AgentIdAttr, value: agentId },
        { key: OrgIdAttr, value: orgId },
        // A run of a limited org may wait for a slot first: it shows pending until it moves.
        { key: RunStatusAttr, value: concurrencyLimit !== undefined ? 'pending' : firstRunStatus(mode) },
        { key: RunModeAttr, value: mode },
      ],
      staticSummary: runSummary(run.agentName, run.request, taskId),
      // Shown on the workflow's page in the Web UI; fixed at start (the current status is in the current details).
      staticDetails: [
        `**${mode}** run \`${runId}\` of agent **${run.agentName}** (\`${agentId}\`)`,
        `- org: \`${orgId}\``,
        `- task: \`${taskId}\``,
        `- started by: \`${run.userId}\``,
        ...(run.source
          ? [`- source: ${run.source.kind} flow **${run.source.flow_name}**, event \`${run.source.external_id}\``]
          : run.via
            ? [`- source: ${run.via}`]
            : []),
        `- routing: ${routingReason}`,
      ].join('\n'),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
