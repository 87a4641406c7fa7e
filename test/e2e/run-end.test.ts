import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/db/event-log.ts';
import { recordComment } from '../../src/db/runs.ts';
import { storeRunStep, type Bill, type RunStep } from '../../src/db/run-steps.ts';
import type { RunEventInput } from '../../src/shared/events.ts';
import { newId } from '../../src/shared/ids.ts';
import { commentKey, FINISHED_KEY, runFinishedEvent, statusDelta, STOPPING_KEY } from '../../src/shared/run-end.ts';
import { closeTestDb, createTenant, testDb, type Tenant } from '../support/tenant.ts';

/**
 * The store's side of a run's end when the last model step stores it (model-step.ts): it is
 * refused when a cancel or a steering comment got in first, a comment is refused once the run
 * ended, and nothing at all is written to an ended run. Against the real database, with the
 * product's own writes.
 */
describe('a run end stored by its last model step', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant();
  });
  afterAll(closeTestDb);

  async function executingRun(): Promise<string> {
    const taskId = newId('task');
    const runId = newId('run');
    await testDb().task.create({
      data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.users.owner, title: 'end' },
    });
    await testDb().run.create({
      data: {
        id: runId,
        taskId,
        status: 'executing',
        requestedMode: 'fast',
        mode: 'fast',
        routingReason: 'test',
        streamed: true,
      },
    });
    return runId;
  }

  const streamed: RunEventInput[] = [
    { type: 'TEXT_MESSAGE_START', message_id: 'msg_end', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', message_id: 'msg_end', delta: 'done' },
    { type: 'TEXT_MESSAGE_END', message_id: 'msg_end' },
  ];
  const usage = { inputTokens: 3, outputTokens: 4 };
  const price = (): Bill => ({
    usage,
    credits: 1,
    event: { type: 'CUSTOM', name: 'USAGE', data: { input_tokens: 3, output_tokens: 4 } },
  });
  const end = (runId: string): RunStep => ({
    runId,
    key: FINISHED_KEY,
    status: 'completed',
    streamed,
    events: [
      statusDelta('completed'),
      runFinishedEvent(runId, { outcome: 'completed', text: 'done' }, 'test-model', usage),
    ],
    result: { outcome: 'completed', text: 'done' },
    unlessInterrupted: true,
  });
  const typesOf = async (runId: string) =>
    (await readEvents(testDb(), runId, 0, 100)).map((e) => (e.type === 'CUSTOM' ? `CUSTOM:${e.name}` : e.type));
  const statusOf = async (runId: string) => (await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status;

  it('is stored with the step’s last events first, then USAGE, the status and RUN_FINISHED, billed once', async () => {
    const runId = await executingRun();
    const balance = async () => (await testDb().org.findUniqueOrThrow({ where: { id: tenant.orgId } })).creditBalance;
    const before = await balance();
    expect(await storeRunStep(testDb(), end(runId), price)).toEqual({ endedMode: 'fast' });
    expect(await typesOf(runId)).toEqual([
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'CUSTOM:USAGE',
      'STATE_DELTA',
      'RUN_FINISHED',
    ]);
    expect(await statusOf(runId)).toBe('completed');
    expect(await balance()).toBe(before - 1n);
    // The same end again (a retried step) is a duplicate: nothing more is written or billed.
    expect(await storeRunStep(testDb(), end(runId), price)).toEqual({});
    expect(await typesOf(runId)).toHaveLength(6);
    expect(await balance()).toBe(before - 1n);
  });

  it('is refused once a cancel wrote its STOPPING: the run stays executing and its log unchanged', async () => {
    const runId = await executingRun();
    await storeRunStep(testDb(), {
      runId,
      key: STOPPING_KEY,
      events: [{ type: 'CUSTOM', name: 'STOPPING', data: { run_id: runId } }],
    });
    expect(await storeRunStep(testDb(), end(runId), price)).toEqual({ refused: 'interrupted' });
    expect(await typesOf(runId)).toEqual(['CUSTOM:STOPPING']);
    expect(await statusOf(runId)).toBe('executing');
  });

  it('is refused while a comment waits to be applied, and stored once it was', async () => {
    const runId = await executingRun();
    const comment = await recordComment(testDb(), {
      id: newId('cmt'),
      runId,
      userId: tenant.users.owner,
      content: 'one more thing',
    });
    expect(comment?.id).toMatch(/^cmt_/);
    expect(await storeRunStep(testDb(), end(runId), price)).toEqual({ refused: 'interrupted' });
    expect(await typesOf(runId)).toEqual([]);
    await storeRunStep(testDb(), {
      runId,
      key: commentKey(comment!.id),
      events: [{ type: 'CUSTOM', name: 'SYSTEM_STATUS', data: { status: 'comment_applied' } }],
    });
    expect(await storeRunStep(testDb(), end(runId), price)).toEqual({ endedMode: 'fast' });
    expect(await statusOf(runId)).toBe('completed');
  });

  it('once the run ended: a comment is refused, and a cancel’s STOPPING or a second end writes nothing', async () => {
    const runId = await executingRun();
    await storeRunStep(testDb(), end(runId), price);
    const logged = await typesOf(runId);
    expect(
      await recordComment(testDb(), { id: newId('cmt'), runId, userId: tenant.users.owner, content: 'too late' }),
    ).toBeUndefined();
    expect(await testDb().runComment.count({ where: { runId } })).toBe(0);
    expect(
      await storeRunStep(testDb(), {
        runId,
        key: STOPPING_KEY,
        events: [{ type: 'CUSTOM', name: 'STOPPING', data: { run_id: runId } }],
      }),
    ).toEqual({ refused: 'run_ended' });
    const cancelled: RunStep = {
      runId,
      key: 'cancelled',
      status: 'cancelled',
      events: [
        statusDelta('cancelled'),
        { type: 'RUN_ERROR', run_id: runId, message: 'x', code: 'CANCELLED', details: {} },
      ],
    };
    expect(await storeRunStep(testDb(), cancelled, price)).toEqual({ refused: 'run_ended' });
    expect(await typesOf(runId)).toEqual(logged);
    expect(await statusOf(runId)).toBe('completed');
  });
});
