import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import {
  answer,
  expectOneTerminal,
  expectReplays,
  readTaskStream,
  runStatus,
  startBackgroundRun,
  types,
  waitForPending,
  waitForStatus,
  type Caller,
} from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess } from '../support/worker-process.ts';
import { eventually } from '../support/eventually.ts';

const askText = {
  messages: [{ role: 'user', content: '/tool request_user_input {"input_type":"text","prompt":"Name?"}' }],
};
const control = (who: Caller, taskId: string, action: 'cancel' | 'pause' | 'resume') =>
  call('POST', `/api/tasks/${taskId}/${action}`, { token: who.token, agentId: who.agentId, body: {} });

let who: Caller;
let slow: FakeOpenAi;
let slowAgent: Caller;

/** A fresh model server whose first answer streams slowly and then calls save_memory; later answers are quick. */
async function useSlowModel(): Promise<void> {
  await slow?.close();
  slow = await startFakeOpenAi({
    chunks: ['done'],
    responses: [
      {
        chunks: Array.from({ length: 20 }, (_, i) => `w${i} `),
        delayMs: 150,
        toolCalls: [{ name: 'save_memory', args: { content: 'paused fact' } }],
      },
    ],
  });
  const slowTenant = await createTenant({ provider: 'openai-compatible', base_url: slow.baseUrl, model: 'slow' });
  slowAgent = { token: await exchange(slowTenant.keys.owner), agentId: slowTenant.agentId };
}

beforeAll(async () => {
  const tenant = await createTenant();
  who = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});
afterAll(async () => slow?.close());

describe('cancel', () => {
  it('cancels a run blocked on input: STOPPING, one terminal event, the request closed', async () => {
    const { taskId, runId } = await startBackgroundRun(who, askText);
    const pending = await waitForPending(who, taskId);
    const res = await control(who, taskId, 'cancel');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ task_id: taskId, run_id: runId, action: 'cancel' });
    const frames = await readTaskStream(who, taskId);
    const order = types(frames);
    expect(order.indexOf('CUSTOM:STOPPING')).toBeGreaterThan(-1);
    expect(order.indexOf('CUSTOM:STOPPING')).toBeLessThan(order.indexOf('RUN_ERROR'));
    expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('cancelled');
    expect((await testDb().inputRequest.findUniqueOrThrow({ where: { id: pending.request_id } })).status).toBe(
      'cancelled',
    );
    expect(
      await (
        await call('GET', `/api/tasks/${taskId}/pending-input`, { token: who.token, agentId: who.agentId })
      ).json(),
    ).toEqual({ pending: false });
    expect(
      (await answer(who, taskId, { request_id: pending.request_id, run_id: runId, input_type: 'text', value: 'late' }))
        .status,
    ).toBe(409);
    expect((await control(who, taskId, 'cancel')).status).toBe(409);
    await expectReplays(runId, 'cancelled-while-blocked');
  });

  it('stops the model stream itself', async () => {
    await useSlowModel();
    const before = slow.aborted;
    const { taskId, runId } = await startBackgroundRun(slowAgent, {
      messages: [{ role: 'user', content: 'long answer please' }],
    });
    await waitForFirstText(slowAgent, taskId);
    expect((await control(slowAgent, taskId, 'cancel')).status).toBe(200);
    const frames = await readTaskStream(slowAgent, taskId);
    expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    await eventually('the model call to be aborted', () => expect(slow.aborted).toBe(before + 1), {
      timeout: 10_000,
    });
    expect(types(frames)).not.toContain('TOOL_CALL_RESULT');
    await expectReplays(runId, 'cancelled-mid-stream');
  });

  it('an operator cancelling the workflow in Temporal ends the run the same way', async () => {
    const { taskId, runId } = await startBackgroundRun(who, askText);
    await waitForPending(who, taskId);
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      await new Client({ connection }).workflow.getHandle(runId).cancel();
    } finally {
      await connection.close();
    }
    const frames = await readTaskStream(who, taskId);
    expect(types(frames)).toContain('CUSTOM:STOPPING');
    expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('cancelled');
  });

  it('answers 409 when the task has no active run', async () => {
    const { taskId } = await startBackgroundRun(who, { messages: [{ role: 'user', content: 'quick' }] });
    await readTaskStream(who, taskId);
    for (const action of ['cancel', 'pause', 'resume'] as const)
      expect((await control(who, taskId, action)).status).toBe(409);
  });
});

describe('pause and resume', () => {
  it('pauses at the next safe point, stays paused, and resumes from there', async () => {
    await useSlowModel();
    const requestsBefore = slow.requests.length;
    const { taskId, runId } = await startBackgroundRun(slowAgent, {
      messages: [{ role: 'user', content: 'remember something' }],
    });
    await waitForFirstText(slowAgent, taskId);
    const paused = await control(slowAgent, taskId, 'pause');
    expect(paused.status).toBe(200);
    expect((await control(slowAgent, taskId, 'pause')).status).toBe(409);
    await waitForStatus(slowAgent, taskId, 'paused', 30_000);
    await new Promise((r) => setTimeout(r, 1500)); // staying paused is nothing happening: let the time pass
    expect((await runStatus(slowAgent, taskId)).run?.status).toBe('paused');
    expect(slow.requests.length - requestsBefore).toBe(1);
    expect(await testDb().runEvent.count({ where: { runId, type: 'TOOL_CALL_RESULT' } })).toBe(0);
    expect((await control(slowAgent, taskId, 'resume')).status).toBe(200);
    const frames = await readTaskStream(slowAgent, taskId);
    const statuses = frames
      .filter((f) => f.data.type === 'STATE_DELTA')
      .map((f) => (f.data.delta as { value: string }[])[0]!.value);
    expect(statuses).toEqual(['executing', 'paused', 'executing', 'completed']);
    expect(types(frames)).toContain('TOOL_CALL_RESULT');
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect((await control(slowAgent, taskId, 'resume')).status).toBe(409);
    await expectReplays(runId, 'paused-and-resumed');
  });

  it('refuses to pause a run that waits for input, and to resume one that is not paused', async () => {
    const { taskId, runId } = await startBackgroundRun(who, askText);
    const pending = await waitForPending(who, taskId);
    expect((await control(who, taskId, 'pause')).status).toBe(409);
    expect((await control(who, taskId, 'resume')).status).toBe(409);
    await answer(who, taskId, { request_id: pending.request_id, run_id: runId, input_type: 'text', value: 'Ada' });
    expect(expectOneTerminal(await readTaskStream(who, taskId)).type).toBe('RUN_FINISHED');
  });
});

describe('races end in one consistent outcome', () => {
  it('two answers at once: exactly one is accepted', async () => {
    const { taskId, runId } = await startBackgroundRun(who, askText);
    const pending = await waitForPending(who, taskId);
    const body = (value: string) => ({ request_id: pending.request_id, run_id: runId, input_type: 'text', value });
    const results = await Promise.all([
      answer(who, taskId, body('a')),
      answer(who, taskId, body('b')),
      answer(who, taskId, body('c')),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const frames = await readTaskStream(who, taskId);
    expect(frames.filter((f) => f.data.type === 'TOOL_CALL_RESULT')).toHaveLength(1);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
  });

  it('cancel against an answer: cancelled, or completed with the cancel refused — never both', async () => {
    for (let i = 0; i < 3; i++) {
      const { taskId, runId } = await startBackgroundRun(who, askText);
      const pending = await waitForPending(who, taskId);
      const [answered, cancelled] = await Promise.all([
        answer(who, taskId, { request_id: pending.request_id, run_id: runId, input_type: 'text', value: 'x' }),
        control(who, taskId, 'cancel'),
      ]);
      const terminal = expectOneTerminal(await readTaskStream(who, taskId));
      const status = (await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status;
      if (cancelled.status === 200) expect([status, terminal.code]).toEqual(['cancelled', 'CANCELLED']);
      else expect([cancelled.status, status, terminal.type]).toEqual([409, 'completed', 'RUN_FINISHED']);
      expect([200, 409]).toContain(answered.status);
    }
  });

  it('pause against completion: the run never ends paused', async () => {
    const { taskId, runId } = await startBackgroundRun(who, { messages: [{ role: 'user', content: 'short' }] });
    const res = await control(who, taskId, 'pause');
    expect([200, 409]).toContain(res.status);
    if ((await runStatus(who, taskId)).run?.status === 'paused' || res.status === 200) {
      await waitForStatusOneOf(who, taskId, ['paused', 'completed']);
      if ((await runStatus(who, taskId)).run?.status === 'paused')
        expect((await control(who, taskId, 'resume')).status).toBe(200);
    }
    expect(expectOneTerminal(await readTaskStream(who, taskId)).type).toBe('RUN_FINISHED');
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('completed');
  });
});

describe('restarts', () => {
  it('a run waiting for input survives a worker crash; pending-input stays right throughout', async () => {
    const queue = `restart-${randomBytes(3).toString('hex')}`;
    const api = await startApiProcess({ TEMPORAL_TASK_QUEUE: queue });
    let worker = await startWorkerProcess(queue);
    try {
      const res = await fetch(`${api.url}/api/run`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${who.token}`,
          'X-Agent-Id': who.agentId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ ...askText, stream: false }),
      });
      const { id: runId, task_id: taskId } = (await res.json()) as { id: string; task_id: string };
      const pending = await waitForPending(who, taskId);
      await worker.crash();
      expect((await waitForPending(who, taskId)).request_id).toBe(pending.request_id);
      worker = await startWorkerProcess(queue);
      // Answered as soon as the new worker is up: if the crash cut the workflow task that asked, the
      // rebuilt run may not hold the question yet, and the api sends the answer again until it does.
      const ok = await answer(who, taskId, {
        request_id: pending.request_id,
        run_id: runId,
        input_type: 'text',
        value: 'after the crash',
      });
      expect(ok.status, await ok.clone().text()).toBe(200);
      const frames = await readTaskStream(who, taskId);
      expect(JSON.parse(frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data.content as string)).toMatchObject({
        value: 'after the crash',
      });
      expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
      await expectReplays(runId, 'worker-crash-while-waiting');
    } finally {
      await worker.stop();
      await api.close();
    }
  }, 180_000);
});

async function waitForFirstText(caller: Caller, taskId: string): Promise<void> {
  const res = await call('GET', `/api/tasks/${taskId}/stream`, { token: caller.token, agentId: caller.agentId });
  const controller = new AbortController();
  await readSse(
    new Response(
      new ReadableStream({
        async start(stream) {
          for await (const chunk of res.body!) {
            stream.enqueue(chunk);
            if (new TextDecoder().decode(chunk as Uint8Array).includes('TEXT_MESSAGE_CONTENT')) break;
          }
          stream.close();
          controller.abort();
        },
      }),
    ),
  ).then(withoutHeartbeats);
}

async function waitForStatusOneOf(caller: Caller, taskId: string, statuses: string[]): Promise<void> {
  await eventually(
    'the run to reach one of the statuses',
    async () => expect((await runStatus(caller, taskId)).run?.status).toSatisfy((s: string) => statuses.includes(s)),
    { timeout: 20_000 },
  );
}
