import { jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai';
import type { ChatMessage, ToolSpec } from './provider.ts';

/** Our conversation in the AI SDK's message format. */
export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  return messages.map((m): ModelMessage => {
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: m.role, content: m.content };
      case 'assistant':
        if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
        return {
          role: 'assistant',
          content: [
            ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
            ...m.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.args })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: m.toolCallId, toolName: m.toolName, output: { type: 'text', value: m.content } }],
        };
    }
  });
}

/** Tools without `execute`: the SDK stops after the model's tool calls, and the workflow runs them. */
export function toToolSet(tools: ToolSpec[]): ToolSet | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.parameters as never) })]));
}
