import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { RunEventInput } from '../../shared/events.ts';

/** A chatty server's progress reaches the run's stream at most this often (the last report always does). */
const MIN_INTERVAL_MS = 250;

/**
 * MCP progress notifications of one call, relayed as SYSTEM_STATUS `tool_progress` events of its
 * tool call, in order and best effort: a lost report is not worth failing or delaying the call.
 */
export function progressRelay(
  call: { toolCallId: string; name: string },
  attempt: number,
  append: (events: RunEventInput[]) => Promise<unknown>,
): { onprogress: (progress: Progress) => void; settled: () => Promise<unknown> } {
  let last = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const onprogress = (progress: Progress) => {
    const now = Date.now();
    const final = progress.total !== undefined && progress.progress >= progress.total;
    if (!final && now - last < MIN_INTERVAL_MS) return;
    last = now;
    const data = {
      status: 'tool_progress',
      tool_call_id: call.toolCallId,
      tool: call.name,
      attempt,
      progress: progress.progress,
      ...(progress.total !== undefined ? { total: progress.total } : {}),
      ...(progress.message ? { message: progress.message } : {}),
    };
    chain = chain.then(() => append([{ type: 'CUSTOM', name: 'SYSTEM_STATUS', data }])).catch(() => {});
  };
  // Awaited before the call returns, so no report lands after the call's result.
  return { onprogress, settled: () => chain };
}
