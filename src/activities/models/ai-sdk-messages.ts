import { jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai';
import type { ChatMessage, ToolSpec } from './provider.ts';

/**
 * Our conversation in the AI SDK's message format. The SDK takes system text
 * only as its `system` option: leading system messages join it, and later ones
 * (deep mode's step instructions) become user messages marked as instructions, in place.
 */
export function toModelRequest(
  system: string | undefined,
  messages: ChatMessage[],
): { system?: string; messages: ModelMessage[] } {
  const lead = messages.findIndex((m) => m.role !== 'system');
  const leading = (lead < 0 ? messages : messages.slice(0, lead)).map((m) => m.content);
  const rest = lead < 0 ? [] : messages.slice(lead);
  const combined = [system, ...leading].filter(Boolean).join('\n\n');
  return { system: combined || undefined, messages: toModelMessages(rest) };
}

function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  return messages.map((m): ModelMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'user', content: `[Instruction from the service] ${m.content}` };
      case 'user':
        return { role: m.role, content: m.content };
      case 'assistant':
        if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
        return {
          role: 'assistant',
          content: [
            ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
            ...m.toolCalls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.name,
              input: c.args,
            })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: m.toolCallId,
              toolName: m.toolName,
              output: { type: 'text', value: m.content },
            },
          ],
        };
    }
  });
}

/** Tools without `execute`: the SDK stops after the model's tool calls, and the workflow runs them. */
export function toToolSet(tools: ToolSpec[]): ToolSet | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.parameters as never) })]),
  );
}
