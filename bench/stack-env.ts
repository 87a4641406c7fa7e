/**
 * The api and worker settings of a bench stack. One user makes every request in a bench: the
 * per-user limits (30 runs, 100 task requests a minute, 20 streams) would stop it.
 */
export const BENCH_STACK_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  MODEL_PROVIDER: 'offline',
  RATE_LIMIT_RUNS_PER_MINUTE: '100000',
  RATE_LIMIT_TASKS_PER_MINUTE: '100000',
  RATE_LIMIT_EVENTS_PER_MINUTE: '100000',
  SSE_MAX_STREAMS_PER_USER: '100000',
  SSE_MAX_STREAMS_PER_PROCESS: '100000',
  // The MCP row's tool server listens on loopback, as a developer's own would (`npm start` allows it too).
  OUTBOUND_PRIVATE_TARGETS: 'allow',
};
