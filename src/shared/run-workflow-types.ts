import type { ClientTool } from './client-tools.ts';
import type { RunMode } from './events.ts';
import type { RunStatus } from './run-status.ts';
import type { ToolServerRef } from './tool-server-types.ts';

/** What the api hands the run workflow when it starts it (workflow id = run id). */
export interface RunWorkflowInput {
  runId: string;
  taskId: string;
  orgId: string;
  agentId: string;
  mode: RunMode;
  routingReason: string;
  /**
   * The agent's run policy, read by the api when it started the run. Runs started without it
   * (by the reconciler, or before it came with the start) load it first.
   */
  settings?: RunSettings;
  /**
   * The api stored RUN_STARTED and the first STATE_SNAPSHOT with the run, so a client reads
   * them without waiting for the worker. Without it the workflow writes them (idempotent by key).
   */
  startRecorded?: boolean;
  /** Tools the caller runs itself, offered to the model in this run; a call of one ends the run (see client-tools.ts). */
  clientTools?: ClientTool[];
  /**
   * The org's limit of concurrent runs when the run was started: the run takes a slot before its
   * first step (src/workflows/run-slots.ts). Absent: the org has none, and the run issues no command for it.
   */
  concurrencyLimit?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface RunOutcome {
  status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;
  usage: TokenUsage;
}

/** Stable failure types (ApplicationFailure.type) shared by activities and the workflow. */
/** Attempts a model or tool call gets when the provider or the tool itself fails (infrastructure failures retry without limit). */
export const CALL_ATTEMPTS = 3;

export const failureTypes = {
  modelConfig: 'ModelConfigError',
  model: 'ModelError',
  tool: 'ToolFailure',
  /** The run's rows are gone (its task was deleted): nothing more can be written. */
  runGone: 'RunGone',
  /** PostgreSQL or Temporal unreachable: retried with backoff until it is back. */
  infrastructure: 'InfrastructureUnavailable',
  /** A sandbox call reached a host that no longer holds the sandbox's lease: the workflow asks again where it is. */
  sandboxMoved: 'SandboxMoved',
} as const;

export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** One activity tool call, as the workflow hands it to the runTool activity. */
export interface ToolCallInput {
  runId: string;
  taskId: string;
  orgId: string;
  agentId: string;
  toolCallId: string;
  name: string;
  args: unknown;
}

/** What a tool call produced: its output, or an error the model is shown. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: { code: string; message: string } };

/** Where an agent's sandbox lives: its host's task queue, and how long to wait for that host before asking again. */
export interface SandboxRoute {
  taskQueue: string;
  waitSeconds: number;
}

/** The agent's run policy, loaded when a run starts. */
export interface RunSettings {
  maxSteps: number;
  approvalRequiredTools: string[];
  sensitiveTools: string[];
  requirePlanApproval: boolean;
  /** The agent's MCP tool servers; absent when it has none (such a run issues no commands for them). */
  toolServers?: ToolServerRef[];
}

/** Model steps a run takes before the agent must answer, unless its agent sets `max_steps`. */
export const DEFAULT_MAX_STEPS = 10;

/** The policy of an agent that sets none. */
export const defaultRunSettings: RunSettings = {
  maxSteps: DEFAULT_MAX_STEPS,
  approvalRequiredTools: [],
  sensitiveTools: [],
  requirePlanApproval: false,
};
