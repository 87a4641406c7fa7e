import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createRunProgressActivities } from '../../src/activities/run-progress.ts';
import { loadConfig } from '../../src/config.ts';
import { readEvents } from '../../src/db/event-log.ts';
import { creditsFor } from '../../src/shared/credits.ts';
import { newId } from '../../src/shared/ids.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { waitForStatus } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

/** The settings the test worker runs with (the global setup passes it this environment). */
const config = () => loadConfig({ ...process.env, JWT_SECRET: inject('jwtSecret') });

const balanceOf = async (orgId: string) =>
  (await testDb().org.findUniqueOrThrow({ where: { id: orgId } })).creditBalance;

/** Rows a run request writes; a refused request must change none of them. */
async function footprint(orgId: string) {
  const db = testDb();
  const [tasks, runs, messages] = await Promise.all([
    db.task.count({ where: { orgId } }),
    db.run.count({ where: { task: { orgId } } }),
    db.message.count({ where: { task: { orgId } } }),
  ]);
  return { tasks, runs, messages };
}

describe('billing of runs', () => {
  const usage = { prompt_tokens: 1500, completion_tokens: 700 };
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fake = await startFakeOpenAi({ chunks: ['Billed ', 'answer.'], usage });
  });
  afterAll(async () => fake?.close());

  it('sends a USAGE event that matches the stored run, and debits the org by exactly what each run cost', async () => {
    const tenant = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'fake-model' });
    const token = await exchange(tenant.keys.member);
    const before = await balanceOf(tenant.orgId);
    const expected = creditsFor(
      { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens },
      config().creditsPer1kTokens,
    );
    expect(expected).toBeGreaterThan(0);

    let taskId: string | undefined;
    const runIds: string[] = [];
    for (const question of ['first', 'second', 'third']) {
      const res = await call('POST', '/api/run', {
        token,
        agentId: tenant.agentId,
        body: { ...userMessage(question), ...(taskId ? { task_id: taskId } : {}) },
      });
      expect(res.status).toBe(200);
      const frames = withoutHeartbeats(await readSse(res));
      const runId = frames[0]!.data.run_id as string;
      taskId = frames[0]!.data.thread_id as string;
      runIds.push(runId);
      expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
      // Exactly one USAGE event, sent before the terminal event.
      const usageEvents = frames.filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'USAGE');
      expect(usageEvents).toHaveLength(1);
      const usageEvent = usageEvents[0]!.data;
      expect(usageEvent).toMatchObject({
        type: 'CUSTOM',
        name: 'USAGE',
        data: {
          input_tokens: usage.prompt_tokens,
          output_tokens: usage.completion_tokens,
          total_tokens: 2200,
          credits: expected,
        },
      });
      const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
      expect({
        credits: run.creditsUsed,
        input: run.inputTokens,
        output: run.outputTokens,
        billed: run.billedAt !== null,
      }).toEqual({
        credits: expected,
        input: usage.prompt_tokens,
        output: usage.completion_tokens,
        billed: true,
      });
    }
    const runs = await testDb().run.findMany({ where: { id: { in: runIds } } });
    const spent = runs.reduce((sum, r) => sum + r.creditsUsed, 0);
    expect(spent).toBe(3 * expected);
    expect(await balanceOf(tenant.orgId)).toBe(before - BigInt(spent));
  });
});

describe('the credit pre-flight check', () => {
  let tenant: Tenant;
  let token: string;
  let taskId: string;

  beforeAll(async () => {
    tenant = await createTenant();
    token = await exchange(tenant.keys.member);
    const started = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { ...userMessage('while there is credit'), stream: false },
    });
    expect(started.status).toBe(202);
    taskId = ((await started.json()) as { task_id: string }).task_id;
    // Ended before the checks, so its own answer is not counted as something a refused start wrote.
    await waitForStatus({ token, agentId: tenant.agentId }, taskId, 'completed', 60_000);
  });

  it.each([0, -5])(
    'refuses every way of starting a run with 402 when the balance is %i, writing nothing',
    async (balance) => {
      await testDb().org.update({ where: { id: tenant.orgId }, data: { creditBalance: BigInt(balance) } });
      const before = await footprint(tenant.orgId);
      const attempts = [
        call('POST', '/api/run', { token, agentId: tenant.agentId, body: userMessage('streamed') }),
        call('POST', '/api/run', {
          token,
          agentId: tenant.agentId,
          body: { ...userMessage('background'), stream: false },
        }),
        call('POST', '/api/run', {
          token,
          agentId: tenant.agentId,
          body: { ...userMessage('continued'), task_id: taskId, stream: false },
        }),
        call('POST', '/api/run/async', { token, agentId: tenant.agentId, body: userMessage('async') }),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(402);
        const body = (await res.json()) as { detail: string };
        expect(Object.keys(body)).toEqual(['detail']);
        expect(body.detail).toMatch(/out of credits/);
        expect(body.detail).toContain(`balance ${balance}`);
      }
      expect(await footprint(tenant.orgId)).toEqual(before);
    },
  );

  it('starts runs again once the balance is positive', async () => {
    await testDb().org.update({ where: { id: tenant.orgId }, data: { creditBalance: 1n } });
    const res = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { ...userMessage('topped up'), stream: false },
    });
    expect(res.status).toBe(202);
  });
});

describe('recordProgress billing on a retried activity', () => {
  it('debits the org and writes the USAGE event once when the terminal step is recorded twice', async () => {
    const tenant = await createTenant();
    const db = testDb();
    const taskId = newId('task');
    const runId = newId('run');
    await db.task.create({
      data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.users.member, title: 'billing' },
    });
    await db.run.create({
      data: {
        id: runId,
        taskId,
        requestedMode: 'auto',
        mode: 'fast',
        routingReason: 'test',
        streamed: false,
        status: 'executing',
      },
    });
    const before = await balanceOf(tenant.orgId);

    const { recordProgress } = createRunProgressActivities({
      db,
      config: config(),
      logger: pino({ level: 'silent' }),
      env: {},
      deltaFlushMs: 0,
    });
    const usage = { inputTokens: 2500, outputTokens: 1000 };
    const input = {
      runId,
      key: 'terminal',
      status: 'completed' as const,
      events: [{ type: 'RUN_FINISHED' as const, run_id: runId, result: { text: 'done' } }],
      bill: { usage, model: 'test-model' },
    };
    await recordProgress(input);
    await recordProgress(input); // the activity retried after its first attempt committed

    const credits = creditsFor(usage, config().creditsPer1kTokens);
    expect(await balanceOf(tenant.orgId)).toBe(before - BigInt(credits));
    const events = await readEvents(db, runId, 0, 100);
    expect(events.map((e) => e.name)).toEqual(['USAGE', 'RUN_FINISHED']);
    expect(events[0]!.payload).toMatchObject({
      type: 'CUSTOM',
      name: 'USAGE',
      data: { credits, input_tokens: 2500, output_tokens: 1000 },
    });
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.creditsUsed, run.inputTokens, run.outputTokens, run.status]).toEqual([
      credits,
      2500,
      1000,
      'completed',
    ]);
  });
});
