import type { RunEventInput } from '../shared/events.ts';
import type { PendingRequest } from '../shared/input-requests.ts';
import { planStep } from './activities.ts';
import { runAgentLoop, type LoopResult } from './agent-loop.ts';
import type { RunState } from './run-state.ts';
import { serverToolsForPlanner } from './tool-servers.ts';

export type PlannedOutcome =
  { kind: 'done'; result: LoopResult; steps: string[] } | { kind: 'rejected'; feedback?: string; steps: string[] };

type StepStatus = 'pending' | 'in_progress' | 'completed';

/**
 * Deep mode: a planning step writes the plan (PLAN_CREATED, STATE_SNAPSHOT of
 * its progress), the plan approval gate when the agent requires it, then each
 * step in turn, reported as STATE_DELTA patches of /plan/steps/<i>/status.
 */
export async function runPlanned(state: RunState): Promise<PlannedOutcome> {
  const { input } = state;
  await state.move('planning', 'planning');
  const plan = await planStep({
    runId: input.runId,
    taskId: input.taskId,
    agentId: input.agentId,
    ...serverToolsForPlanner(state),
  });
  state.addUsage(plan.usage, plan.model, 'plan');
  let steps = plan.steps;
  const planId = state.newId('plan');
  await state.record('plan-created', [
    {
      type: 'CUSTOM',
      name: 'PLAN_CREATED',
      data: { plan_id: planId, steps: steps.map((title, index) => ({ index, title })) },
    },
    snapshot(
      steps,
      steps.map(() => 'pending'),
    ),
  ]);

  if (state.settings.requirePlanApproval) {
    const approvalId = state.newId('apv');
    const request: PendingRequest = {
      requestId: state.newId('req'),
      inputType: 'plan_approval',
      prompt: 'Approve this plan before the agent starts?',
      details: { plan: { steps }, approval_id: approvalId },
      sensitive: false,
    };
    const { answer } = await state.ask(request, {
      gate: true,
      openRequest: {
        request,
        taskId: input.taskId,
        approval: { id: approvalId, orgId: input.orgId, agentId: input.agentId, kind: 'plan' },
      },
    });
    if (answer.cancelled) return { kind: 'rejected', steps };
    if ('approved' in answer && !answer.approved) return { kind: 'rejected', feedback: answer.feedback, steps };
    if ('modified_steps' in answer && answer.modified_steps) {
      steps = answer.modified_steps;
      await state.record('plan-modified', [
        snapshot(
          steps,
          steps.map(() => 'pending'),
        ),
      ]);
    }
    if ('feedback' in answer && answer.feedback) {
      await state.record('plan-feedback', [], {
        message: { taskId: input.taskId, role: 'user', content: `Feedback on the plan: ${answer.feedback}` },
      });
    }
  } else {
    await state.move('executing', 'plan-accepted');
  }

  let result: LoopResult = { text: '', steps: 0 };
  for (const [i, title] of steps.entries()) {
    await state.record(`plan-step:${i}:start`, [progress(i, 'in_progress')], {
      message: {
        taskId: input.taskId,
        role: 'system',
        content: `Plan step ${i + 1} of ${steps.length}: ${title}. Do this step now.`,
      },
    });
    result = await runAgentLoop(state, `plan-step:${i}`);
    await state.record(`plan-step:${i}:done`, [progress(i, 'completed')]);
  }
  return { kind: 'done', result, steps };
}

function snapshot(steps: string[], statuses: StepStatus[]): RunEventInput {
  return {
    type: 'STATE_SNAPSHOT',
    state: { plan: { steps: steps.map((title, i) => ({ index: i, title, status: statuses[i] })) } },
  };
}

function progress(index: number, status: StepStatus): RunEventInput {
  return { type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/plan/steps/${index}/status`, value: status }] };
}
