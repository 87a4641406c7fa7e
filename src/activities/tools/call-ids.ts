import { createHash } from 'node:crypto';
import type { IdPrefix } from '../../shared/ids.ts';
import type { ToolContext } from './types.ts';

/**
 * The id of the row a tool call creates, derived from the run and the call: a
 * retried activity attempt gets the same id, so an insert that already happened
 * is skipped instead of repeated. Same shape as `newId` (prefix + 128 bits).
 */
export function idForToolCall(prefix: IdPrefix, ctx: Pick<ToolContext, 'runId' | 'toolCallId'>): string {
  const digest = createHash('sha256').update(`${ctx.runId}\0${ctx.toolCallId}`).digest('hex');
  return `${prefix}_${digest.slice(0, 32)}`;
}
