import { ApplicationFailure } from '@temporalio/common';
import { RunGoneError } from '../db/event-log.ts';
import { IllegalTransitionError } from '../shared/run-status.ts';
import { failureTypes } from '../shared/run-workflow-types.ts';

/**
 * A deleted run cannot be written to again, and a status move the transition table refuses is a bug
 * no retry fixes: say so without retries, so the workflow ends the run failed.
 */
export async function nonRetryableIfRunGone<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof RunGoneError) throw ApplicationFailure.nonRetryable(err.message, failureTypes.runGone);
    if (err instanceof IllegalTransitionError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}
