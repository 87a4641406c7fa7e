import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  proxyActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { failureTypes, type SandboxRoute, type ToolCallInput, type ToolOutcome } from '../shared/run-workflow-types.ts';
import { leaseSandbox } from './activities.ts';
import { snapshotOptions, toolCallOptions } from './activity-options.ts';
import type { RunState } from './run-state.ts';

/**
 * A sandbox tool call on the host that holds the sandbox. The route is asked once
 * per run and kept; when its host does not pick the call up within a lease period
 * (it died: the lease has lapsed by then) or says it no longer holds the sandbox, the
 * route is asked again, and the lease moves to a live host, which restores the
 * workspace from its latest snapshot at the call.
 */
export async function runSandboxTool(state: RunState, call: ToolCallInput): Promise<ToolOutcome> {
  for (;;) {
    const route = await currentRoute(state);
    try {
      return await proxyActivities<Activities>(onHost(toolCallOptions, route)).runTool(call);
    } catch (err) {
      if (!hostUnreachable(err)) throw err;
      state.sandboxRoute = undefined;
    }
  }
}

/**
 * Saves the workspace on its host (after the run, or before a wait for a person, when a
 * call changed it). Best effort: when the host is gone, its last snapshot is what there is.
 */
export async function snapshotOnHost(state: RunState): Promise<void> {
  const route = state.sandboxRoute;
  if (!route) return;
  const { orgId, agentId, runId } = state.input;
  await CancellationScope.nonCancellable(() =>
    proxyActivities<Activities>(onHost(snapshotOptions, route)).snapshotSandbox({ orgId, agentId, runId }),
  ).catch(() => undefined);
  state.sandboxChanged = false;
}

async function currentRoute(state: RunState): Promise<SandboxRoute> {
  const { orgId, agentId } = state.input;
  state.sandboxRoute ??= await leaseSandbox({ orgId, agentId });
  return state.sandboxRoute;
}

function onHost(options: ActivityOptions, route: SandboxRoute): ActivityOptions {
  return { ...options, taskQueue: route.taskQueue, scheduleToStartTimeout: `${route.waitSeconds} seconds` };
}

function hostUnreachable(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) return cause.timeoutType === 'SCHEDULE_TO_START';
  return cause instanceof ApplicationFailure && cause.type === failureTypes.sandboxMoved;
}
