import { Context } from '@temporalio/activity';
import type { ModelStepInput, ModelStepResult } from '../../src/activities/model-step.ts';
import type { PlanStepResult } from '../../src/activities/plan-step.ts';
import type { ProgressStored, RecordProgressInput } from '../../src/activities/run-progress.ts';
import { queuedKey, type Admission } from '../../src/db/run-slots.ts';
import type { RunEventInput } from '../../src/shared/events.ts';
import type { ToolServersListing } from '../../src/shared/tool-server-types.ts';
import { commentKey, FINISHED_KEY, runFinishedEvent, statusDelta, STOPPING_KEY } from '../../src/shared/run-end.ts';
import { isTerminalStatus, type RunStatus } from '../../src/shared/run-status.ts';
import {
  defaultRunSettings,
  type RunSettings,
  type ToolCall,
  type ToolCallInput,
  type ToolOutcome,
} from '../../src/shared/run-workflow-types.ts';

/** What the scripted model answers in one step. */
export interface Reply {
  text?: string;
  toolCalls?: ToolCall[];
}

/** One model step: a reply, or a function that makes it (and may wait first). */
export type Turn = Reply | ((input: ModelStepInput) => Reply | Promise<Reply>);

/** A point an activity waits at until the test lets it go on. */
export interface Gate {
  open(): void;
  wait(): Promise<void>;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, wait: () => opened };
}

/** Inside a fake activity: never resolves; the activity ends when it is cancelled (at the latest, the worker shutting down). */
export const untilCancelled = (): Promise<never> => Context.current().cancelled;

/**
 * The run's rows as the real store keeps them (src/db/run-steps.ts), in memory: writes are idempotent
 * by key, nothing is stored once the run has ended (`refused: 'run_ended'`), and a write
 * `unlessInterrupted` is refused while a STOPPING or an unapplied comment is stored.
 */
export class FakeRunStore {
  status: RunStatus = 'pending';
  /** Every status the run was stored with, starting with the api's `pending`. */
  readonly statuses: RunStatus[] = ['pending'];
  readonly events: RunEventInput[] = [];
  /** The stored writes, in commit order. */
  readonly writes: RecordProgressInput[] = [];
  /** Writes the store refused, and why. */
  readonly refused: { key: string; refused: NonNullable<ProgressStored['refused']> }[] = [];
  /** The task's conversation: the messages the run stored. */
  readonly conversation: { role: string; content: string }[] = [];
  private readonly keys = new Set<string>();
  private readonly unappliedComments = new Set<string>();

  constructor(
    private readonly before: NonNullable<FakeOptions['before']> = {},
    private readonly after: NonNullable<FakeOptions['after']> = {},
  ) {}

  /** The api stored a steering comment (before it signals the workflow). */
  addComment(commentId: string): void {
    this.unappliedComments.add(commentId);
  }

  async write({ bill, ...step }: RecordProgressInput): Promise<ProgressStored> {
    await this.before[step.key]?.();
    if (this.keys.has(step.key)) return {};
    const refused = isTerminalStatus(this.status)
      ? 'run_ended'
      : step.unlessInterrupted && (this.keys.has(STOPPING_KEY) || this.unappliedComments.size > 0)
        ? 'interrupted'
        : undefined;
    if (refused) {
      this.refused.push({ key: step.key, refused });
      return { refused };
    }
    this.keys.add(step.key);
    this.writes.push({ ...step, ...(bill ? { bill } : {}) });
    const usage: RunEventInput[] = bill ? [{ type: 'CUSTOM', name: 'USAGE', data: {} }] : [];
    this.events.push(...(step.streamed ?? []), ...usage, ...step.events);
    if (step.key.startsWith(commentKey(''))) this.unappliedComments.delete(step.key.slice(commentKey('').length));
    if (step.message) this.conversation.push({ role: step.message.role, content: step.message.content });
    if (step.status && step.status !== this.status) {
      this.status = step.status;
      this.statuses.push(step.status);
    }
    this.after[step.key]?.();
    return {};
  }

  /** The types of the stored events (CUSTOM events by name), in order. */
  eventTypes(): string[] {
    return this.events.map((e) => (e.type === 'CUSTOM' ? e.name : e.type));
  }
}

/**
 * One org's concurrent-run slots as src/db/run-slots.ts keeps them, in memory: a run holds a slot from
 * its admission until its store says it ended; waiting runs are admitted in the order they were added.
 */
export class FakeOrgSlots {
  private readonly runs: { runId: string; store: FakeRunStore; slot?: 'waiting' | 'held' }[] = [];
  constructor(public limit: number) {}

  /** A run of the org, in the order the api stored them. */
  add(runId: string, store: FakeRunStore): void {
    this.runs.push({ runId, store });
  }

  private holders = () => this.runs.filter((r) => r.slot === 'held' && !isTerminalStatus(r.store.status)).length;
  private waiting = () => this.runs.filter((r) => r.slot === 'waiting' && r.store.status === 'pending');

  async admit(runId: string): Promise<Admission> {
    const run = this.runs.find((r) => r.runId === runId)!;
    if (run.slot === 'held' || run.store.status !== 'pending') return { admitted: true };
    const index = this.runs.indexOf(run);
    const position = this.waiting().filter((r) => this.runs.indexOf(r) < index).length + 1;
    if (position === 1 && this.holders() < this.limit) {
      run.slot = 'held';
      return { admitted: true, wake: this.toAdmit() };
    }
    run.slot = 'waiting';
    const data = { status: 'queued', reason: 'org_concurrency_limit', limit: this.limit, position };
    await run.store.write({
      runId,
      key: queuedKey(position),
      events: [{ type: 'CUSTOM', name: 'SYSTEM_STATUS', data }],
    });
    return { admitted: false, position };
  }

  /** The oldest waiting runs, as many as slots are free. */
  toAdmit(): string[] {
    const free = this.limit - this.holders();
    return free > 0
      ? this.waiting()
          .slice(0, free)
          .map((r) => r.runId)
      : [];
  }
}

export interface FakeOptions {
  /** The model's steps, in order. */
  model: Turn[];
  settings?: Partial<RunSettings>;
  /** Deep mode: the plan the planning step writes, or a function that makes it (and may wait first). */
  plan?: string[] | (() => Promise<string[]>);
  /** What listing the agent's tool servers (settings.toolServers) finds at the run's start. */
  toolServers?: ToolServersListing;
  /** Waits before a write of that key is looked at (a transaction waiting for the run's lock). */
  before?: Record<string, () => Promise<void>>;
  /** Called once a write of that key has committed. */
  after?: Record<string, () => void>;
  /** The org's slots, for a run started with a concurrency limit. */
  slots?: FakeOrgSlots;
}

/** The run's activities as in-memory fakes that record their calls; the workflow is the real one. */
export function fakeActivities({
  model,
  settings,
  plan = ['Look', 'Answer'],
  toolServers,
  before,
  after,
  slots,
}: FakeOptions) {
  const store = new FakeRunStore(before, after);
  const modelCalls: (ModelStepInput & { conversation: string[] })[] = [];
  const toolCalls: ToolCallInput[] = [];
  const planCalls: unknown[] = [];
  const usage = { inputTokens: 1, outputTokens: 1 };

  const activities = {
    loadRunSettings: async (): Promise<RunSettings> => ({ ...defaultRunSettings, ...settings }),
    hasStandingGrant: async (): Promise<boolean> => false,
    admitRun: ({ runId }: { runId: string }): Promise<Admission> => slots!.admit(runId),
    runsToAdmit: async (): Promise<string[]> => slots!.toAdmit(),
    recordProgress: (input: RecordProgressInput): Promise<ProgressStored> => store.write(input),

    async planStep(input: unknown): Promise<PlanStepResult> {
      planCalls.push(input);
      return { steps: typeof plan === 'function' ? await plan() : plan, usage, model: 'fake-model' };
    },

    listToolServerTools: async (): Promise<ToolServersListing> => toolServers ?? { tools: [], unavailable: [] },

    async runTool(call: ToolCallInput): Promise<ToolOutcome> {
      toolCalls.push(call);
      return { ok: true, output: { done: call.name } };
    },

    /** As model-step.ts: stores `enter` first; with `finish`, an answer without tool calls stores the run's end. */
    async modelStep(input: ModelStepInput): Promise<ModelStepResult> {
      modelCalls.push({ ...input, conversation: store.conversation.map((m) => m.content) });
      if (input.enter) await store.write(input.enter);
      const turn = model[modelCalls.length - 1];
      if (!turn) throw new Error(`the script has no model step ${modelCalls.length}`);
      const reply = typeof turn === 'function' ? await turn(input) : turn;
      const answer = { text: reply.text ?? '', toolCalls: reply.toolCalls ?? [], usage, model: 'fake-model' };
      if (!input.finish || answer.toolCalls.length > 0) return answer;
      const result = { outcome: 'completed', text: answer.text, steps: input.finish.stepCount };
      const stored = await store.write({
        runId: input.runId,
        key: FINISHED_KEY,
        status: 'completed',
        events: [statusDelta('completed'), runFinishedEvent(input.runId, result, answer.model, usage)],
        result,
        message: { taskId: input.taskId, role: 'assistant', content: answer.text },
        bill: { usage, model: answer.model, steps: input.finish.steps },
        unlessInterrupted: true,
      });
      return stored.refused ? { ...answer, interrupted: true } : { ...answer, ended: true };
    },
  };

  return { activities, store, modelCalls, toolCalls, planCalls };
}

export type FakeActivities = ReturnType<typeof fakeActivities>['activities'];

/**
 * One worker's activities for many runs: each call goes to the fakes of the run whose workflow made it
 * (workflow id = run id), so a file needs one worker (each Worker.create loads the bundle anew, about a second).
 */
export function activitiesByRun(fakesOf: (runId: string) => FakeActivities | undefined): FakeActivities {
  const fakes = (): FakeActivities => {
    const runId = Context.current().info.workflowExecution?.workflowId;
    const found = runId ? fakesOf(runId) : undefined;
    if (!found) throw new Error(`no fakes for run ${runId}`);
    return found;
  };
  return {
    loadRunSettings: () => fakes().loadRunSettings(),
    hasStandingGrant: () => fakes().hasStandingGrant(),
    admitRun: (input) => fakes().admitRun(input),
    runsToAdmit: () => fakes().runsToAdmit(),
    recordProgress: (input) => fakes().recordProgress(input),
    planStep: (input) => fakes().planStep(input),
    listToolServerTools: () => fakes().listToolServerTools(),
    runTool: (call) => fakes().runTool(call),
    modelStep: (input) => fakes().modelStep(input),
  };
}
