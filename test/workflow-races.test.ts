import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { ModelStepInput } from '../src/activities/model-step.ts';
import type { RecordProgressInput } from '../src/activities/run-progress.ts';
import type { RunSettings } from '../src/shared/run-workflow-types.ts';
import { runWorkflow } from '../src/workflows/index.ts';
import { cancelUpdate, refusals } from '../src/workflows/run-messages.ts';
import { closeTemporalConnection, expectReplays, installQuietRuntime } from './support/runs.ts';

const require = createRequire(import.meta.url);

afterAll(closeTemporalConnection);

/**
 * A race the real stack only hits by chance, made to happen every time: the run's workflow
 * on a real Temporal server with activities that hold their answers until the other side of
 * the race has started. The model's answer arrives while the cancel's STOPPING write is still
 * under way, so the agent's work is done before `work.cancel()` runs.
 */
describe('cancel accepted while the agent finishes', () => {
  it('ends cancelled, with one terminal event and no RUN_FINISHED (patch cancel-wins-over-finish)', async () => {
    const taskQueue = `races-${randomBytes(3).toString('hex')}`;
    const written: RecordProgressInput[] = [];
    let stoppingStarted!: () => void;
    const stopping = new Promise<void>((resolve) => (stoppingStarted = resolve));
    let modelCalled!: () => void;
    const modelStarted = new Promise<void>((resolve) => (modelCalled = resolve));
    const settings: RunSettings = { maxSteps: 10, approvalRequiredTools: [], sensitiveTools: [], requirePlanApproval: false };
    const activities = {
      loadRunSettings: async () => settings,
      recordProgress: async (input: RecordProgressInput) => {
        if (input.key === 'stopping') {
          stoppingStarted();
          await new Promise((r) => setTimeout(r, 1500)); // the STOPPING write is slow
        }
        written.push(input);
      },
      modelStep: async () => {
        modelCalled();
        await stopping; // the answer comes in while the cancel is being written
        return { text: 'done', messageId: 'msg_race', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, model: 'race-model' };
      },
      snapshotSandbox: async () => ({ snapshot_id: null }),
    };
    installQuietRuntime();
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({ connection: workerConnection, taskQueue, workflowsPath: require.resolve('../src/workflows/index.ts'), activities });
    const runId = `run_race_${randomBytes(6).toString('hex')}`;
    try {
      const outcome = await worker.runUntil(async () => {
        const client = new Client({ connection });
        const handle = await client.workflow.start(runWorkflow, {
          taskQueue,
          workflowId: runId,
          args: [{ runId, taskId: 'task_race', orgId: 'org_race', agentId: 'agt_race', mode: 'fast', routingReason: 'test' }],
        });
        await modelStarted;
        const cancel = await handle.executeUpdate(cancelUpdate, { args: [{ requestedBy: 'test' }] });
        expect(cancel.message).toMatch(/ends cancelled/);
        return handle.result();
      });
      expect(outcome.status).toBe('cancelled');
      const events = written.flatMap((w) => w.events);
      const terminal = events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
      expect(terminal).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'CANCELLED' })]);
      expect(written.at(-1)!.status).toBe('cancelled');
      await expectReplays(runId, 'cancel-wins-over-finish');
    } finally {
      await connection.close();
      await workerConnection.close();
    }
  }, 120_000);

  it('the last model step stored the run’s end first: the cancel is refused, the run completes, nothing more is written', async () => {
    const taskQueue = `races-${randomBytes(3).toString('hex')}`;
    const written: RecordProgressInput[] = [];
    let stoppingStarted!: () => void;
    const stopping = new Promise<void>((resolve) => (stoppingStarted = resolve));
    let modelCalled!: () => void;
    const modelStarted = new Promise<void>((resolve) => (modelCalled = resolve));
    const steps: ModelStepInput[] = [];
    const settings: RunSettings = { maxSteps: 10, approvalRequiredTools: [], sensitiveTools: [], requirePlanApproval: false };
    const activities = {
      loadRunSettings: async () => settings,
      recordProgress: async (input: RecordProgressInput) => {
        if (input.key === 'stopping') {
          stoppingStarted();
          await new Promise((r) => setTimeout(r, 500));
          return { refused: 'run_ended' }; // what the store answers: the step's end was committed first
        }
        written.push(input);
        return {};
      },
      modelStep: async (input: ModelStepInput) => {
        steps.push(input);
        modelCalled();
        await stopping; // the step commits the run's end while the cancel's STOPPING waits for the run's lock
        return { text: 'done', messageId: 'msg_race', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, model: 'race-model', ended: true };
      },
      snapshotSandbox: async () => ({ snapshot_id: null }),
    };
    installQuietRuntime();
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({ connection: workerConnection, taskQueue, workflowsPath: require.resolve('../src/workflows/index.ts'), activities });
    const runId = `run_race_${randomBytes(6).toString('hex')}`;
    try {
      const { outcome, cancel } = await worker.runUntil(async () => {
        const client = new Client({ connection });
        const handle = await client.workflow.start(runWorkflow, {
          taskQueue,
          workflowId: runId,
          args: [{ runId, taskId: 'task_race', orgId: 'org_race', agentId: 'agt_race', mode: 'fast', routingReason: 'test' }],
        });
        await modelStarted;
        const cancel = await handle.executeUpdate(cancelUpdate, { args: [{ requestedBy: 'test' }] }).catch((err: unknown) => err);
        return { outcome: await handle.result(), cancel };
      });
      expect(cancel).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((cancel as WorkflowUpdateFailedError).cause).toMatchObject({ type: refusals.notActive });
      expect(outcome.status).toBe('completed');
      expect(steps[0]!.finish).toMatchObject({ usage: { inputTokens: 0, outputTokens: 0 }, label: 'main:0', stepCount: 1 });
      // After its first events the workflow wrote nothing: no STOPPING, no second end.
      expect(written.flatMap((w) => w.events).map((e) => e.type)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT']);
      await expectReplays(runId, 'cancel-refused-after-step-ended');
    } finally {
      await connection.close();
      await workerConnection.close();
    }
  }, 120_000);
});
