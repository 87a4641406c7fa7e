import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lockRunLogToEnd, RunGoneError, readEvents } from '../../src/db/event-log.ts';
import { storeRunStep, type RunStep } from '../../src/db/run-steps.ts';
import { recordComment } from '../../src/db/runs.ts';
import { inPgTransaction } from '../../src/db/sql.ts';
import { newId } from '../../src/shared/ids.ts';
import { commentKey, FINISHED_KEY, statusDelta, stoppingEvent, STOPPING_KEY } from '../../src/shared/run-end.ts';
import { IllegalTransitionError, type RunStatus } from '../../src/shared/run-status.ts';
import { backendPid, waitUntilBlockedBy } from '../support/pg-locks.ts';
import { closeTestDb, createTenant, testDb, type Tenant } from '../support/tenant.ts';

/**
 * A plain run step (a status move that is not an end, with its events: a model step's
 * `executing`, a pause, a cancel's STOPPING) is one statement that locks the run, checks the
 * key and the run's end, and writes. Against the real database, with the product's own writes.
 */
describe('a plain run step, stored in one statement', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant();
  });
  afterAll(closeTestDb);

  async function run(status: RunStatus): Promise<string> {
    const taskId = newId('task');
    const runId = newId('run');
    await testDb().task.create({
      data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.users.owner, title: 'steps' },
    });
    await testDb().run.create({
      data: { id: runId, taskId, status, requestedMode: 'fast', mode: 'fast', routingReason: 'test', streamed: true },
    });
    return runId;
  }
  const executing = (runId: string): RunStep => ({
    runId,
    key: 'executing',
    status: 'executing',
    events: [statusDelta('executing')],
  });
  const logOf = async (runId: string) => (await readEvents(testDb(), runId, 0, 1000)).map((e) => [e.seq, e.type]);
  const rowOf = (runId: string) => testDb().run.findUniqueOrThrow({ where: { id: runId } });

  it('moves the status and appends the events after the log’s end, once per key', async () => {
    const runId = await run('pending');
    expect(await storeRunStep(testDb(), executing(runId))).toEqual({});
    expect(await storeRunStep(testDb(), executing(runId))).toEqual({}); // a retried activity: a duplicate
    expect(await logOf(runId)).toEqual([[1, 'STATE_DELTA']]);
    expect(await rowOf(runId)).toMatchObject({ status: 'executing', lastEventSeq: 1 });
    expect(await storeRunStep(testDb(), { runId, key: STOPPING_KEY, events: [stoppingEvent(runId)] })).toEqual({});
    expect(await logOf(runId)).toEqual([
      [1, 'STATE_DELTA'],
      [2, 'CUSTOM'],
    ]);
    expect(await rowOf(runId)).toMatchObject({ status: 'executing', lastEventSeq: 2 });
  });

  it('writes nothing to an ended run, and says so', async () => {
    const runId = await run('completed');
    expect(await storeRunStep(testDb(), { runId, key: STOPPING_KEY, events: [stoppingEvent(runId)] })).toEqual({
      refused: 'run_ended',
    });
    expect(await logOf(runId)).toEqual([]);
    expect(await rowOf(runId)).toMatchObject({ status: 'completed', lastEventSeq: 0 });
  });

  it('refuses a move the transition table does not allow, and writes nothing (one statement or a transaction)', async () => {
    const paused = await run('paused');
    const toPlanning: RunStep = {
      runId: paused,
      key: 'planning',
      status: 'planning',
      events: [statusDelta('planning')],
    };
    await expect(storeRunStep(testDb(), toPlanning)).rejects.toThrow(IllegalTransitionError);
    const toCompleted: RunStep = { ...toPlanning, key: 'done', status: 'completed', result: { outcome: 'completed' } };
    await expect(storeRunStep(testDb(), toCompleted)).rejects.toThrow(
      'Run status cannot move from paused to completed',
    );
    expect(await logOf(paused)).toEqual([]);
    expect(await rowOf(paused)).toMatchObject({ status: 'paused', lastEventSeq: 0 });
  });

  it('fails for a run that does not exist', async () => {
    await expect(storeRunStep(testDb(), executing(newId('run')))).rejects.toBeInstanceOf(RunGoneError);
  });

  it('numbers concurrent writers of one run gap-free: each takes the lock in turn', async () => {
    const runId = await run('executing');
    const keys = Array.from({ length: 24 }, (_, i) => `note:${i}`);
    const notes = keys.map((key, step) =>
      storeRunStep(testDb(), {
        runId,
        key,
        events: [
          { type: 'CUSTOM', name: 'THOUGHT', data: { text: key, step } },
          { type: 'CUSTOM', name: 'THOUGHT', data: { text: key, step } },
        ],
      }),
    );
    expect(await Promise.all(notes)).toEqual(keys.map(() => ({})));
    const log = await readEvents(testDb(), runId, 0, 1000);
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    // Each step's two events are adjacent: no other writer got in between them.
    for (let i = 0; i < log.length; i += 2)
      expect((log[i]!.payload as { data: unknown }).data).toEqual((log[i + 1]!.payload as { data: unknown }).data);
    expect(await rowOf(runId)).toMatchObject({ lastEventSeq: 48 });
  });

  /**
   * A run's end whose lock waits behind `write` (queued first behind a connection that holds the
   * run's row) must see what `write` stored: its first look reads a snapshot from before the wait.
   */
  async function endWaitingBehind(runId: string, write: () => Promise<unknown>) {
    const holder = new pg.Client({ connectionString: inject('databaseUrl') });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [runId]);
      const pid = await backendPid(holder);
      const written = write();
      await waitUntilBlockedBy(pid, 1, 'the write to wait for the row');
      const end = inPgTransaction(testDb(), (sql) =>
        lockRunLogToEnd(sql, runId, FINISHED_KEY, { stoppingKey: STOPPING_KEY, commentKeyPrefix: commentKey('') }),
      );
      await waitUntilBlockedBy(pid, 2, 'the end to wait behind it, its snapshot taken');
      await holder.query('COMMIT');
      await written;
      return await end;
    } finally {
      await holder.end();
    }
  }

  it("a run's end that waited for a cancel's STOPPING sees it: the cancel wins", async () => {
    const runId = await run('executing');
    const end = await endWaitingBehind(runId, () =>
      storeRunStep(testDb(), { runId, key: STOPPING_KEY, events: [stoppingEvent(runId)] }),
    );
    expect(end).toMatchObject({ interrupted: true, lastSeq: 1, status: 'executing' });
  });

  it("a run's end that waited for a steering comment sees it: the comment is answered, not dropped", async () => {
    const runId = await run('executing');
    const end = await endWaitingBehind(runId, () =>
      recordComment(testDb(), { id: newId('cmt'), runId, userId: tenant.users.owner, content: 'and also this' }),
    );
    expect(end).toMatchObject({ interrupted: true, lastSeq: 0, status: 'executing' });
  });
});
