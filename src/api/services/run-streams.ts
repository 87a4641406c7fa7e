import type { Db } from '../../db/client.ts';
import { findStreamableRun, isRunOfTask, latestStreamableRun, type StreamableRun } from '../../db/runs.ts';
import { notFound } from '../../shared/domain-error.ts';

/** The run a task's stream follows: its latest one (a task with no run yet has nothing to follow). */
export async function latestRunToStream(db: Db, taskId: string): Promise<StreamableRun> {
  const latest = await latestStreamableRun(db, taskId);
  if (!latest) throw notFound(`Task ${taskId} has no runs yet`);
  return latest;
}

/** Whether `runId` is a run of the task (a resume point of an earlier run of it is over, not foreign). */
export function isRunOfTheTask(db: Db, runId: string, taskId: string): Promise<boolean> {
  return isRunOfTask(db, runId, taskId);
}

/** A run just started or replayed by this api, to stream from its first event. */
export async function startedRunToStream(db: Db, runId: string): Promise<StreamableRun> {
  const run = await findStreamableRun(db, runId);
  if (!run) throw new Error(`run ${runId} of a replayed request does not exist`);
  return run;
}
