/**
 * Client tools: tools the caller runs itself (AG-UI frontend tools, CopilotKit actions, `client_tools`
 * of POST /api/run). They reach the run workflow in its input, since they are per run; a run whose model
 * calls one ends with these calls, and the task's next run carries their results as `tool` messages.
 */

/** A client tool as the model is offered it. */
export interface ClientTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The run's `result.outcome` when it ended waiting for the client to run its tools. */
export const CLIENT_TOOL_CALLS_OUTCOME = 'client_tool_calls';

/** One call in `result.client_tool_calls`. */
export interface ClientToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** The client tool calls a run's stored result waits on (none unless it ended with `client_tool_calls`). */
export function pendingClientToolCalls(result: unknown): ClientToolCall[] {
  if (!result || typeof result !== 'object') return [];
  const { outcome, client_tool_calls: calls } = result as Record<string, unknown>;
  if (outcome !== CLIENT_TOOL_CALLS_OUTCOME || !Array.isArray(calls)) return [];
  return calls.filter(
    (c): c is ClientToolCall =>
      typeof c === 'object' && c !== null && typeof c.id === 'string' && typeof c.name === 'string',
  );
}
