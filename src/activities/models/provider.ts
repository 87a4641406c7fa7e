import type { ToolCall, TokenUsage } from '../../shared/run-workflow-types.ts';

/** The conversation as a model sees it. Tool results carry their call's id. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string };

/** A tool offered to the model: name, description and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system?: string;
  messages: ChatMessage[];
  /** Empty: the model must answer in text. */
  tools: ToolSpec[];
  /** `plan`: answer with a numbered plan of steps (deep mode's planning step). */
  purpose?: 'answer' | 'plan';
  signal: AbortSignal;
}

export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** A tool call began; its arguments may follow as `tool-args` deltas. */
  | { type: 'tool-start'; id: string; name: string }
  | { type: 'tool-args'; id: string; delta: string }
  /** A complete tool call (always sent, whether or not it was streamed). */
  | { type: 'tool-call'; id: string; name: string; args: unknown }
  | { type: 'finish'; usage: TokenUsage };

/** A language model that streams its answer. Implementations must stop when `signal` aborts. */
export interface ModelProvider {
  /** Human-readable name for logs and the start output, e.g. "openai-compatible:gpt-4o-mini". */
  readonly label: string;
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
}

/** A configuration problem (missing key, unknown provider): retrying cannot help. */
export class ModelConfigError extends Error {
  override name = 'ModelConfigError';
}
