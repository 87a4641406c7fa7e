/**
 * Rate limits of the api the contract runs talk to: high enough that fuzzing exercises
 * handlers instead of 429s. Only contract runs use these; every other test keeps the defaults.
 */
export const contractRateLimits = {
  RATE_LIMIT_RUNS_PER_MINUTE: '100000',
  RATE_LIMIT_TASKS_PER_MINUTE: '100000',
  WIDGET_RATE_LIMIT_PER_KEY: '100000',
  WIDGET_RATE_LIMIT_PER_VISITOR: '100000',
  RATE_LIMIT_APPROVALS_PER_MINUTE: '100000',
  FLOW_FAILURES_PER_ADDRESS: '100000',
};
