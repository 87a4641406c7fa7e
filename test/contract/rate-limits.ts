/**
 * Rate limits of the api the raised-limits contract run talks to: high enough that fuzzing exercises
 * handlers instead of 429s. Only that run uses these; the default-limits run and every other test keep the defaults.
 */
export const contractRateLimits = {
  RATE_LIMIT_RUNS_PER_MINUTE: '100000',
  RATE_LIMIT_TASKS_PER_MINUTE: '100000',
  RATE_LIMIT_EVENTS_PER_MINUTE: '100000',
  RATE_LIMIT_MEMORIES_PER_MINUTE: '100000',
  RATE_LIMIT_APPROVALS_PER_MINUTE: '100000',
  WIDGET_RATE_LIMIT_PER_KEY: '100000',
  WIDGET_RATE_LIMIT_PER_VISITOR: '100000',
  WIDGET_RATE_LIMIT_PER_ADDRESS: '100000',
  WIDGET_RUNS_PER_KEY: '100000',
  FLOW_EVENTS_PER_MINUTE: '100000',
  FLOW_FAILURES_PER_ADDRESS: '100000',
  EXCHANGE_FAILURES_PER_ADDRESS: '100000',
  EXCHANGE_FAILURES_PER_KEY: '100000',
};
