import type { z } from 'zod';

/**
 * Where a tool runs. `human` tools are handled by the workflow itself: it asks
 * a person and waits (request_user_input, ask_user_question). `activity` tools
 * run as one Temporal activity per call.
 */
export type ToolKind = 'human' | 'activity';

export interface ToolDefinition {
  name: string;
  /** What the model is told the tool does. */
  description: string;
  /** Validates the model's arguments; its JSON Schema is what the model is offered. */
  input: z.ZodType;
  kind: ToolKind;
  /** Of the sensitive class: approving a call needs an org owner or admin. */
  sensitive?: boolean;
  /** Changes nothing: a retried call may simply run again. Others run at most once per call (tool-executions.ts). */
  readOnly?: boolean;
}

export function defineTool<T extends ToolDefinition>(tool: T): T {
  return tool;
}
