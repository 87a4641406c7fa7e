import { ApplicationFailure } from '@temporalio/common';
import { RunGoneError } from '../db/event-log.ts';
import { failureTypes } from '../shared/run-workflow-types.ts';

/** A deleted run cannot be written to again: say so without retries, so its workflow ends. */
export async function nonRetryableIfRunGone<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof RunGoneError) throw ApplicationFailure.nonRetryable(err.message, failureTypes.runGone);
    throw err;
  }
}
