import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, exchange, userMessage } from '../support/http.ts';
import { expectOneTerminal, readTaskStream, startBackgroundRun, waitForStatus, type Caller } from '../support/runs.ts';
import { closeTestDb, createTenant, testDb } from '../support/tenant.ts';

let who: Caller;

beforeAll(async () => {
  const tenant = await createTenant();
  who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
});
afterAll(closeTestDb);

describe('cancel racing with finish', () => {
  it('always ends with exactly one terminal status and one terminal event, and a cancel that was accepted wins', async () => {
    // Cancels land from the start of a run to well after its end, spread over the time a run takes
    // on this machine now, so some arrive before, some during and some after the terminal write.
    const started = Date.now();
    const probe = await startBackgroundRun(who, userMessage('how long does a run take'));
    await waitForStatus(who, probe.taskId, 'completed', 30_000);
    const runMs = Date.now() - started;
    const outcomes: { taskId: string; runId: string; cancelStatus: number }[] = [];
    for (let i = 0; i < 14; i++) {
      const { taskId, runId } = await startBackgroundRun(who, userMessage(`race ${i}`));
      await new Promise((r) => setTimeout(r, (runMs * i) / 7));
      const cancel = await call('POST', `/api/tasks/${taskId}/cancel`, {
        token: who.token,
        agentId: who.agentId,
        body: {},
      });
      outcomes.push({ taskId, runId, cancelStatus: cancel.status });
    }
    const seen = new Set<number>();
    for (const { taskId, runId, cancelStatus } of outcomes) {
      expect([200, 409]).toContain(cancelStatus);
      seen.add(cancelStatus);
      const frames = await readTaskStream(who, taskId);
      const terminal = expectOneTerminal(frames);
      const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
      if (cancelStatus === 200) {
        expect(terminal).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
        expect(run.status).toBe('cancelled');
        expect(frames.filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'STOPPING')).toHaveLength(1);
      } else {
        expect(terminal.type).toBe('RUN_FINISHED');
        expect(run.status).toBe('completed');
      }
      expect(frames.filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'USAGE')).toHaveLength(1);
      const stored = await testDb().runEvent.count({ where: { runId, type: { in: ['RUN_FINISHED', 'RUN_ERROR'] } } });
      expect(stored).toBe(1);
    }
    // The spread of delays must have produced both outcomes, or the race was not exercised.
    expect(seen.size).toBe(2);
  }, 120_000);
});
