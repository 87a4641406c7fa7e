import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { failureTypes } from '../shared/run-workflow-types.ts';

/**
 * Writing status and events: short, idempotent by key, retried until the
 * database is back; a run whose rows are gone (task deleted) stops retrying.
 */
export const eventWriteOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [failureTypes.runGone],
  },
};

/**
 * Bookkeeping as local activities: the same timeouts and retries as eventWriteOptions. A
 * backoff longer than a few seconds (PostgreSQL down for a while) waits on a workflow timer
 * instead of holding the workflow task open.
 */
export const localBookkeepingOptions: LocalActivityOptions = {
  startToCloseTimeout: eventWriteOptions.startToCloseTimeout,
  retry: eventWriteOptions.retry,
  localRetryThreshold: '5 seconds',
};

/**
 * One model call: streams, heartbeats every second, so a worker that died (kill -9, a lost host)
 * is noticed after 10 s of silence and the call retried on another worker. Retried without an attempt limit, so
 * a PostgreSQL or Temporal outage or a crashed worker fails no run; the activity itself
 * ends a provider failure after CALL_ATTEMPTS attempts (non-retryable), and a refused
 * key or bad request at once.
 */
export const modelStepOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [failureTypes.modelConfig, failureTypes.runGone],
  },
};

/**
 * One tool call (a sandbox command may take minutes); heartbeats (every second, while the command
 * runs) carry cancellation into it, and their silence for 15 s hands the call to another worker.
 * Attempts as for model calls.
 */
export const toolCallOptions: ActivityOptions = {
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [failureTypes.runGone],
  },
};

/** Small reads of the agent's policy. */
export const settingsOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
};

/** The workspace tarball after a run that used the sandbox; best effort, the run's outcome is already stored. */
export const snapshotOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
};

/**
 * Listing the tools of a run's tool servers at its start. A server that fails is reported by the
 * activity itself, not retried; the policy retries only our own store being away.
 */
export const toolServerListOptions: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};

/**
 * One call of a tool server's tool: as long as its server's `timeout_seconds` allows, plus time to
 * connect and store; heartbeats as tool calls do. The activity limits transport retries itself (CALL_ATTEMPTS).
 */
export function toolServerCallOptions(timeoutSeconds: number): ActivityOptions {
  return { ...toolCallOptions, startToCloseTimeout: `${timeoutSeconds + 30} seconds` };
}
