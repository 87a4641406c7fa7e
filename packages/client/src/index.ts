/** @agent-run/client: the typed TypeScript client of the Agent Run Service (Node >= 20 and browsers). */
export { AgentRunClient, type AgentRunClientOptions, type Identity } from './client.ts';
export {
  AgentRunError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PaymentRequiredError,
  PermissionError,
  RateLimitError,
  ServerError,
  StreamError,
  ValidationError,
} from './errors.ts';
export { isEvent, isTerminalEvent, userInputRequest, type UserInputRequest } from './events.ts';
export { RunStream, type RunStreamOptions } from './run-stream.ts';
export { isTerminalRunStatus, RUN_STATUS_LABELS, runStatusLabel } from './run-status.ts';
export type { RetryOptions } from './retry.ts';
export type { EventsOptions, RunListOptions, Runs, StreamRunOptions } from './resources/runs.ts';
export type { RunControlOptions, Tasks, TaskStreamOptions } from './resources/tasks.ts';
export type { Input, PendingInputState } from './resources/input.ts';
export type { Approvals } from './resources/approvals.ts';
export type { Admin } from './resources/admin.ts';
export type { Agents } from './resources/agents.ts';
export type { Memories, MemoryListOptions } from './resources/memories.ts';
export type * from './types.ts';
export type { components, operations, paths } from './generated/openapi.ts';
