import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { refusals } from '../../workflows/run-messages.ts';
import type { AnswerProblem } from '../../shared/answer-schemas.ts';
import { DomainError, conflict, invalidField, type DomainErrorKind } from '../../shared/domain-error.ts';

const kindOfRefusal: Record<string, DomainErrorKind> = {
  [refusals.notPending]: 'conflict',
  [refusals.notActive]: 'conflict',
  [refusals.forbidden]: 'forbidden',
};

/** gRPC status FAILED_PRECONDITION. */
const FAILED_PRECONDITION = 9;

/** Times an update is sent again when the workflow task that held it failed before accepting it. */
const TASK_FAILURE_RETRIES = 3;

/**
 * The server refuses an update whose workflow task failed before the update was accepted
 * (FAILED_PRECONDITION, e.g. the task ended in UnhandledCommand because an activity completed
 * while it ran). Nothing of it was applied, so it is sent again with the same update id.
 */
function taskFailedBeforeAccepting(err: unknown): boolean {
  const cause = (err as { cause?: { code?: number; details?: string } }).cause;
  return cause?.code === FAILED_PRECONDITION && /workflow task failure/i.test(cause.details ?? '');
}

/**
 * Sends an Update to a run's workflow and waits for its result. A refusal by
 * the workflow's validator becomes the matching domain error with its message;
 * a workflow that has ended is "not active" (a conflict).
 */
export async function sendRunUpdate<Ret, Arg>(
  temporal: Client,
  runId: string,
  update: UpdateDefinition<Ret, [Arg]>,
  arg: Arg,
): Promise<Ret> {
  const updateId = randomUUID();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await temporal.workflow.getHandle(runId).executeUpdate(update, { args: [arg], updateId });
      } catch (err) {
        if (attempt > TASK_FAILURE_RETRIES || !taskFailedBeforeAccepting(err)) throw err;
      }
    }
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
      if (err.cause.type === refusals.invalidAnswer) throw invalidAnswerError(err.cause);
      const kind = kindOfRefusal[err.cause.type ?? ''];
      if (kind) throw new DomainError(kind, err.cause.message);
    }
    if (err instanceof WorkflowNotFoundError) throw conflict(`Run ${runId} is not active`);
    throw err;
  }
}

/** A refused answer names the field of the request body it is about (a worker older than `details` says only the message). */
function invalidAnswerError(failure: ApplicationFailure): DomainError {
  const problem = failure.details?.[0] as Partial<AnswerProblem> | undefined;
  return invalidField(['body', ...(problem?.loc ?? [])], failure.message, problem?.type);
}
