import type { ActivityOptions } from '@temporalio/workflow';
import { failureTypes } from '../shared/run-workflow-types.ts';

/** Writing status and events: short, idempotent by key, retried until the database is back. */
export const eventWriteOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};

/** One model call: streams, heartbeats on every flush, retried a few times. */
export const modelStepOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '60 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [failureTypes.modelConfig],
  },
};
