import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import { activityLogFields, knownOwnerOf, logContextInterceptor } from '../../src/worker/activity-log-context.ts';

/** A client whose only query is the run-owner lookup, counting its calls. */
function fakeDb() {
  const findUnique = vi.fn(async ({ where }: { where: { id: string } }) => ({
    taskId: `task_of_${where.id}`,
    task: { orgId: 'org_db', agentId: 'agt_db' },
  }));
  return { db: { run: { findUnique } } as unknown as Db, findUnique };
}

/** Runs one activity of `runId` with these arguments through the interceptor; returns the log fields it saw. */
async function fieldsSeen(db: Db, runId: string, args: unknown[]) {
  const ctx = {
    info: { workflowExecution: { workflowId: runId, runId: 'temporal-run' }, activityType: 'someActivity', attempt: 1 },
  } as unknown as Context;
  const { inbound } = logContextInterceptor(db)(ctx);
  return inbound.execute!({ args, headers: {} } as unknown as ActivityExecuteInput, async () => activityLogFields());
}

describe('activity log context', () => {
  it('takes the owner ids from an input that carries them, without a query, and keeps them for the run', async () => {
    const { db, findUnique } = fakeDb();
    const owner = { orgId: 'org_1', taskId: 'task_1', agentId: 'agt_1' };
    expect(await fieldsSeen(db, 'run_in', [{ ...owner, runId: 'run_in', toolCallId: 'c1' }])).toEqual({
      runId: 'run_in',
      workflowId: 'run_in',
      activityType: 'someActivity',
      attempt: 1,
      ...owner,
    });
    // A later activity of the run whose input names no owner reuses them.
    expect(await fieldsSeen(db, 'run_in', [{ runId: 'run_in' }])).toMatchObject(owner);
    expect(knownOwnerOf('run_in')).toEqual(owner);
    expect(findUnique).not.toHaveBeenCalled();
  });

  it('looks the owner up once per run when the input does not carry it', async () => {
    const { db, findUnique } = fakeDb();
    const expected = { orgId: 'org_db', taskId: 'task_of_run_db', agentId: 'agt_db' };
    expect(await fieldsSeen(db, 'run_db', [{ runId: 'run_db', agentId: 'agt_db' }])).toMatchObject(expected);
    expect(await fieldsSeen(db, 'run_db', [])).toMatchObject(expected);
    expect(findUnique).toHaveBeenCalledTimes(1);
  });
});
