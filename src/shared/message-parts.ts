/** Structured parts stored beside a message's text (the `messages.parts` column). */
export interface MessageParts {
  /** On assistant messages: the tool calls the model made. */
  tool_calls?: { id: string; name: string; input: unknown }[];
  /** On tool messages: which call this result answers. */
  tool_call_id?: string;
  tool_name?: string;
}
