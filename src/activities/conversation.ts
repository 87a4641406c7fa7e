import type { Db } from '../db/client.ts';
import { listMessages } from '../db/conversation.ts';
import type { MessageParts } from '../shared/message-parts.ts';
import type { ToolCall } from '../shared/run-workflow-types.ts';
import type { ChatMessage } from './models/provider.ts';

/** A task's stored conversation, as the model is shown it. */
export async function loadConversation(db: Db, taskId: string): Promise<ChatMessage[]> {
  const rows = await listMessages(db, taskId);
  const messages: ChatMessage[] = [];
  for (const row of rows) {
    const parts = (row.parts ?? {}) as MessageParts;
    switch (row.role) {
      case 'system':
      case 'user':
        messages.push({ role: row.role, content: row.content });
        break;
      case 'assistant': {
        const toolCalls: ToolCall[] | undefined = parts.tool_calls?.map((c) => ({
          id: c.id,
          name: c.name,
          args: c.input,
        }));
        messages.push({ role: 'assistant', content: row.content, ...(toolCalls?.length ? { toolCalls } : {}) });
        break;
      }
      case 'tool':
        messages.push({
          role: 'tool',
          toolCallId: parts.tool_call_id ?? '',
          toolName: parts.tool_name ?? '',
          content: row.content,
        });
        break;
    }
  }
  return messages;
}
