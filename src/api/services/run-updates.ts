import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { refusals } from '../../workflows/run-messages.ts';
import { HttpError, conflict } from '../errors.ts';

const statusOfRefusal: Record<string, number> = {
  [refusals.notPending]: 409,
  [refusals.notActive]: 409,
  [refusals.invalidAnswer]: 422,
  [refusals.forbidden]: 403,
};

/**
 * Sends an Update to a run's workflow and waits for its result. A refusal by
 * the workflow's validator becomes the matching HTTP error with its message;
 * a workflow that has ended is "not active" (409).
 */
export async function sendRunUpdate<Ret, Arg>(temporal: Client, runId: string, update: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret> {
  try {
    return await temporal.workflow.getHandle(runId).executeUpdate(update, { args: [arg] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
      const status = statusOfRefusal[err.cause.type ?? ''];
      if (status) throw new HttpError(status, err.cause.message);
    }
    if (err instanceof WorkflowNotFoundError) throw conflict(`Run ${runId} is not active`);
    throw err;
  }
}
