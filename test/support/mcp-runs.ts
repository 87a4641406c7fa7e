import type { SseFrame } from './http.ts';

/** A run request whose message makes the offline model call each tool in turn (`/tool name args`). */
export const directives = (...calls: [string, unknown][]) => ({
  messages: [
    { role: 'user', content: calls.map(([tool, args]) => `/tool ${tool} ${JSON.stringify(args)}`).join('\n') },
  ],
});

/** The attempts of tool calls that were retried. */
export const retries = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS')
    .map((f) => f.data.data as Record<string, unknown>)
    .filter((d) => d.status === 'retrying' && d.operation === 'tool_call')
    .map((d) => d.attempt);

/** The parsed contents of a stream's TOOL_CALL_RESULT events. */
export const results = (frames: SseFrame[]) =>
  frames.filter((f) => f.data.type === 'TOOL_CALL_RESULT').map((f) => JSON.parse(f.data.content as string) as unknown);
