/** A task's stored messages as conversation items (user and assistant text, tool calls with their results). */
import type { Message } from '@agent-run/client';
import type { Item } from './run-view.ts';

/** Items for `messages`, leaving out what `skipRunId`'s events will show again (all but its user message). */
export function historyItems(messages: Message[], skipRunId?: string): Item[] {
  const items: Item[] = [];
  for (const m of messages) {
    if (skipRunId && m.run_id === skipRunId && m.role !== 'user') continue;
    if (m.role === 'user') items.push({ kind: 'user', id: m.id, text: m.content });
    if (m.role === 'assistant') {
      if (m.content) items.push({ kind: 'assistant', id: m.id, text: m.content });
      for (const call of m.parts?.tool_calls ?? [])
        items.push({ kind: 'tool', id: call.id, name: call.name, args: JSON.stringify(call.input ?? {}) });
    }
    if (m.role === 'tool' && m.parts?.tool_call_id) {
      const at = items.findIndex((i) => i.kind === 'tool' && i.id === m.parts?.tool_call_id);
      if (at >= 0) items[at] = { ...(items[at] as Extract<Item, { kind: 'tool' }>), result: m.content };
    }
  }
  return items;
}
