import type { TokenUsage } from '../../shared/run-workflow-types.ts';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ModelRequest {
  system?: string;
  messages: ChatMessage[];
  signal: AbortSignal;
}

export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
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
