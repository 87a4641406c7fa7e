import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { RecordProgressInput } from '../../src/activities/run-progress.ts';
import type { RunSettings } from '../../src/shared/run-workflow-types.ts';
import { runWorkflow } from '../../src/workflows/index.ts';
import { cancelUpdate } from '../../src/workflows/run-messages.ts';
import { closeTemporalConnection, expectReplays, installQuietRuntime } from '../support/runs.ts';

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
    const worker = await Worker.create({ connection: workerConnection, taskQueue, workflowsPath: require.resolve('../../src/workflows/index.ts'), activities });
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
        let cancel;
        try { cancel = await handle.executeUpdate(cancelUpdate, { args: [{ requestedBy: 'test' }] }); } catch (e) {
          const h = await handle.fetchHistory();
          for (const ev of h.events ?? []) { const k = Object.keys(ev).find((x) => x.endsWith('Attributes')); console.log('HIST', k, JSON.stringify((ev as any)[k!]).slice(0, 600)); }
          throw e;
        }
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
});
