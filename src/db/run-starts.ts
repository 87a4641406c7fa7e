import type { RunEventInput } from '../shared/events.ts';
import { isActiveStatus, type RunStatus } from '../shared/run-status.ts';
import type { Db } from './client.ts';
import { appendMessages, type NewMessage } from './conversation.ts';
import { appendEventsInTx } from './event-log.ts';
import { deleteIdempotencyKeysOfRun, storeIdempotencyKey, type KeyOwner } from './idempotency.ts';

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
}

export type RunStartResult =
  | { stored: true; taskId: string; createdAt: Date }
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
    if ('new' in start.task) {
      taskId = start.task.new.id;
      await tx.task.create({ data: start.task.new });
    } else {
      taskId = start.task.id;
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${taskId} FOR UPDATE`;
      if (locked.length === 0) return { stored: false, reason: 'task_gone' };
      const latest = await tx.run.findFirst({ where: { taskId }, orderBy: { createdAt: 'desc' }, select: { id: true, status: true } });
      if (latest && isActiveStatus(latest.status)) return { stored: false, reason: 'active_run', activeRun: latest };
    }
    const run = await tx.run.create({ data: { ...start.run, taskId }, select: { createdAt: true } });
    await appendMessages(tx, taskId, start.run.id, start.messages);
    await appendEventsInTx(tx, start.run.id, start.firstEvents.events, start.firstEvents.key);
    if (start.idempotencyKey) {
      const { owner, key, requestHash, expiredBefore } = start.idempotencyKey;
      await storeIdempotencyKey(tx, { ...owner, key, requestHash, runId: start.run.id }, expiredBefore);
    }
    return { stored: true, taskId, createdAt: run.createdAt };
  });
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
