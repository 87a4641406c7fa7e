import type { RunEventInput } from '../shared/events.ts';
import type { MultitaskStrategy } from '../shared/run-request.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { Db, Tx } from './client.ts';
import { appendMessages, type NewMessage } from './conversation.ts';
import { appendEventsInTx } from './event-log.ts';
import { deleteIdempotencyKeysOfRun, storeIdempotencyKey, type KeyOwner } from './idempotency.ts';
import { cancelQueuedRuns, unfinishedRuns } from './run-queue.ts';

/** The pending run a start request stores. */
export interface NewRun {
  id: string;
  requestedMode: 'auto' | 'fast' | 'deep';
  mode: 'fast' | 'deep';
  routingReason: string;
  timezone?: string;
  streamed: boolean;
}

export interface RunStart {
  /** A task the caller may use (checked before), or the new task to create. */
  task: { id: string } | { new: { id: string; orgId: string; agentId: string; userId: string; title: string } };
  run: NewRun;
  messages: NewMessage[];
  /** The run's first events, stored with it under their idempotency key. */
  firstEvents: { events: RunEventInput[]; key: string };
  /** The request's idempotency key, stored with the run (an expired row of the same key is replaced). */
  idempotencyKey?: { owner: KeyOwner; key: string; requestHash: string; expiredBefore: Date };
  /** What to do when the task has an unfinished run (default `reject`). */
  strategy?: MultitaskStrategy;
}

export type RunStartResult =
  | {
      stored: true;
      taskId: string;
      createdAt: Date;
      /** The run waits in the task's queue: start no workflow now. */
      queued: boolean;
      /** The running run to cancel now (`interrupt`, `rollback`). */
      interrupt?: string;
    }
  | { stored: false; reason: 'task_gone' }
  | { stored: false; reason: 'active_run'; activeRun: { id: string; status: RunStatus } };

/**
 * Stores a run start in one transaction: the task (created, or locked so two requests cannot
 * both start a run on it), the pending run, the turn's messages, its first events and its
 * idempotency key. A continued task that was deleted meanwhile, or that has an active run,
 * stores nothing. Two requests racing on one idempotency key: the second violates the key's
 * primary key and its transaction rolls back.
 */
export async function storeRunStart(db: Db, start: RunStart): Promise<RunStartResult> {
  return db.$transaction(async (tx): Promise<RunStartResult> => {
    let taskId: string;
    let busy: { queued: boolean; interrupt?: string; rollsBack: string[] } | undefined;
    if ('new' in start.task) {
      taskId = start.task.new.id;
      await tx.task.create({ data: start.task.new });
    } else {
      taskId = start.task.id;
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${taskId} FOR UPDATE`;
      if (locked.length === 0) return { stored: false, reason: 'task_gone' };
      const unfinished = await unfinishedRuns(tx, taskId);
      if (unfinished.length > 0) {
        const strategy = start.strategy ?? 'reject';
        if (strategy === 'reject') return { stored: false, reason: 'active_run', activeRun: unfinished[0]! };
        busy = await makeRoom(tx, strategy, unfinished, start.run.id);
      }
    }
    const queued = busy !== undefined;
    const run = await tx.run.create({
      data: {
        ...start.run,
        taskId,
        ...(queued ? { queuedAt: new Date(), queuedMessages: start.messages as never, rollsBack: busy!.rollsBack } : {}),
      },
      select: { createdAt: true },
    });
    // A queued run's messages and first events wait until it starts, after everything the runs before it write.
    if (!queued) {
      await appendMessages(tx, taskId, start.run.id, start.messages);
      await appendEventsInTx(tx, start.run.id, start.firstEvents.events, start.firstEvents.key);
    }
    if (start.idempotencyKey) {
      const { owner, key, requestHash, expiredBefore } = start.idempotencyKey;
      await storeIdempotencyKey(tx, { ...owner, key, requestHash, runId: start.run.id }, expiredBefore);
    }
    return { stored: true, taskId, createdAt: run.createdAt, queued, ...(busy?.interrupt ? { interrupt: busy.interrupt } : {}) };
  });
}

/**
 * A new run on a task with unfinished runs. `enqueue`: it waits behind them. `interrupt`: the
 * queued ones that never started are cancelled here, the running one is named for the caller to
 * cancel, and the new run waits for it to end. `rollback`: as `interrupt`, and the new run's
 * start deletes all of them from the task.
 */
async function makeRoom(tx: Tx, strategy: Exclude<MultitaskStrategy, 'reject'>, unfinished: { id: string; queuedAt: Date | null }[], newRunId: string) {
  if (strategy === 'enqueue') return { queued: true, rollsBack: [] };
  const running = unfinished.find((r) => r.queuedAt === null)?.id;
  const waiting = unfinished.filter((r) => r.queuedAt !== null).map((r) => r.id);
  const cancelled = await cancelQueuedRuns(tx, waiting, `Cancelled before it started: run ${newRunId} (${strategy}) replaced it`);
  const rollsBack = strategy === 'rollback' ? [...(running ? [running] : []), ...cancelled] : [];
  return { queued: true, ...(running ? { interrupt: running } : {}), rollsBack };
}

/**
 * Ends a run whose workflow never started, unless it started or ended meanwhile: status failed,
 * one RUN_ERROR, its idempotency key freed. Returns the run's mode when this call ended it.
 */
export async function storeUnstartedRunFailure(db: Db, runId: string, error: { code: string; message: string }, event: RunEventInput): Promise<string | undefined> {
  return db.$transaction(async (tx) => {
    const claimed = await tx.run.updateMany({ where: { id: runId, status: 'pending' }, data: { status: 'failed', finishedAt: new Date(), error } });
    if (claimed.count === 0) return undefined;
    await appendEventsInTx(tx, runId, [event], 'start-failed');
    await deleteIdempotencyKeysOfRun(tx, runId);
    return (await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { mode: true } })).mode;
  });
}
