import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client, Connection, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { ModelStepInput, ModelStepResult } from '../src/activities/model-step.ts';
import type { ProgressStored, RecordProgressInput } from '../src/activities/run-progress.ts';
import type { RunSettings } from '../src/shared/run-workflow-types.ts';
import { agentRun } from '../src/workflows/index.ts';
import { firstRunStatus } from '../src/shared/run-status.ts';
import { RunStatusAttr } from '../src/shared/search-attributes.ts';
import { cancelUpdate, refusals } from '../src/workflows/run-messages.ts';
import { closeTemporalConnection, expectReplays, installQuietRuntime } from './support/runs.ts';

const require = createRequire(import.meta.url);

afterAll(closeTemporalConnection);

/**
 * Races the real stack only hits by chance, made to happen every time: the run's workflow on a
 * real Temporal server with activities that hold their answers until the other side of the race
 * has started. A cancel comes while the model step is answering; its STOPPING write is slow.
 */
describe('cancel accepted while the agent finishes', () => {
  it('ends cancelled, with one terminal event and no RUN_FINISHED', async () => {
    // The model's answer arrives while the cancel's STOPPING write is still under way, so the
    // agent's work is done before `work.cancel()` runs; the step did not store the run's end.
    const race = cancelRace({ stoppingTakes: 1500, stoppingStored: {}, answer: {} });
    const { outcome, cancel } = await race.run();
    expect(cancel).toMatchObject({ message: expect.stringMatching(/ends cancelled/) });
    expect(outcome.status).toBe('cancelled');
    const terminal = race.written
      .flatMap((w) => w.events)
      .filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
    expect(terminal).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'CANCELLED' })]);
    expect(race.written.at(-1)!.status).toBe('cancelled');
    await expectReplays(race.runId, 'cancel-wins-over-finish');
  }, 120_000);

  it('the last model step stored the run’s end first: the cancel is refused, the run completes, nothing more is written', async () => {
    // The step commits the run's end while the cancel's STOPPING waits for the run's lock: the store refuses STOPPING.
    const race = cancelRace({ stoppingTakes: 500, stoppingStored: { refused: 'run_ended' }, answer: { ended: true } });
    const { outcome, cancel } = await race.run();
    expect(cancel).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((cancel as WorkflowUpdateFailedError).cause).toMatchObject({ type: refusals.notActive });
    expect(outcome.status).toBe('completed');
    expect(race.steps[0]!.finish).toMatchObject({
      usage: { inputTokens: 0, outputTokens: 0 },
      label: 'main:0',
      stepCount: 1,
    });
    // After its first events the workflow wrote nothing: no STOPPING, no second end.
    expect(race.written.flatMap((w) => w.events).map((e) => e.type)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT']);
    await expectReplays(race.runId, 'cancel-refused-after-step-ended');
  }, 120_000);

  it('an operator cancels the workflow in Temporal while its last model step stores the end: the run completes', async () => {
    // The workflow's own STOPPING is refused (the run ended): it mirrors the stored end instead of writing a cancelled one.
    const race = cancelRace({
      stoppingTakes: 500,
      stoppingStored: { refused: 'run_ended' },
      answer: { ended: true },
      cancelWith: 'operator',
    });
    const { outcome } = await race.run();
    expect(outcome.status).toBe('completed');
    expect(race.written.flatMap((w) => w.events).map((e) => e.type)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT']);
    await expectReplays(race.runId, 'operator-cancel-after-step-ended');
  }, 120_000);
});

interface CancelRace {
  /** How long the cancel's STOPPING write takes, and what the store answers it. */
  stoppingTakes: number;
  stoppingStored: ProgressStored;
  /** What the model step's answer adds to a plain text answer. */
  answer: Partial<ModelStepResult>;
  /** Our cancel Update (the api's cancel endpoint), or an operator cancelling the workflow in Temporal. */
  cancelWith?: 'update' | 'operator';
}

/** A fast run whose model step answers only once the cancel's STOPPING write has started. */
function cancelRace({ stoppingTakes, stoppingStored, answer, cancelWith = 'update' }: CancelRace) {
  const runId = `run_race_${randomBytes(6).toString('hex')}`;
  const written: RecordProgressInput[] = [];
  const steps: ModelStepInput[] = [];
  let stoppingStarted!: () => void;
  const stopping = new Promise<void>((resolve) => (stoppingStarted = resolve));
  let modelCalled!: () => void;
  const modelStarted = new Promise<void>((resolve) => (modelCalled = resolve));
  const settings: RunSettings = {
    maxSteps: 10,
    approvalRequiredTools: [],
    sensitiveTools: [],
    requirePlanApproval: false,
  };
  const activities = {
    loadRunSettings: async () => settings,
    recordProgress: async (input: RecordProgressInput): Promise<ProgressStored> => {
      if (input.key === 'stopping') {
        stoppingStarted();
        await new Promise((r) => setTimeout(r, stoppingTakes));
        if (stoppingStored.refused) return stoppingStored;
      }
      written.push(input);
      return {};
    },
    modelStep: async (input: ModelStepInput): Promise<ModelStepResult> => {
      steps.push(input);
      modelCalled();
      await stopping;
      return {
        text: 'done',
        messageId: 'msg_race',
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'race-model',
        ...answer,
      };
    },
    snapshotSandbox: async () => ({ snapshot_id: null }),
  };

  async function run() {
    installQuietRuntime();
    const taskQueue = `races-${randomBytes(3).toString('hex')}`;
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    try {
      const worker = await Worker.create({
        connection: workerConnection,
        taskQueue,
        workflowsPath: require.resolve('../src/workflows/index.ts'),
        activities,
      });
      return await worker.runUntil(async () => {
        const handle: WorkflowHandle<typeof agentRun> = await new Client({ connection }).workflow.start(agentRun, {
          taskQueue,
          workflowId: runId,
          args: [
            { runId, taskId: 'task_race', orgId: 'org_race', agentId: 'agt_race', mode: 'fast', routingReason: 'test' },
          ],
          typedSearchAttributes: [{ key: RunStatusAttr, value: firstRunStatus('fast') }], // as the api starts it
        });
        await modelStarted;
        const cancel =
          cancelWith === 'update'
            ? await handle.executeUpdate(cancelUpdate, { args: [{ requestedBy: 'test' }] }).catch((err: unknown) => err)
            : await handle.cancel();
        return { outcome: await handle.result(), cancel };
      });
    } finally {
      await connection.close();
      await workerConnection.close();
    }
  }

  return { runId, written, steps, run };
}
