import { deleteMemoryInScope, insertMemoryOnce, searchMemories } from '../../db/memories.ts';
import { RECALL_LIMIT_DEFAULT } from '../../shared/tools/memory.ts';
import { idForToolCall } from './call-ids.ts';
import { ToolError } from '../../shared/tools/tool-error.ts';
import { implementTool, refuseGuests } from './types.ts';

/**
 * Long-term memory: facts an agent keeps across tasks, scoped to the run's org
 * and agent. No tool ever reads or changes another agent's or org's memories,
 * and a guest's run none at all (guests may not read agent memory).
 */
export const saveMemory = implementTool<{ content: string; tags?: string[] }>('save_memory', async (input, ctx) => {
  await refuseGuests(ctx, 'Agent memory');
  const id = idForToolCall('mem', ctx);
  // skipDuplicates: a retried attempt finds the row of the first one and stores nothing twice.
  await insertMemoryOnce(ctx.deps.db, ctx, {
    id,
    runId: ctx.runId,
    content: input.content,
    tags: [...new Set(input.tags ?? [])],
  });
  return { memory_id: id };
});

export const recallMemory = implementTool<{ query: string; limit?: number; tag?: string }>(
  'recall_memory',
  async (input, ctx) => {
    await refuseGuests(ctx, 'Agent memory');
    const rows = await searchMemories(ctx.deps.db, ctx, {
      query: input.query,
      limit: input.limit ?? RECALL_LIMIT_DEFAULT,
      tag: input.tag,
    });
    return {
      memories: rows.map((m) => ({
        id: m.id,
        content: m.content,
        tags: m.tags,
        created_at: m.created_at.toISOString(),
        rank: Number(m.rank.toFixed(6)),
      })),
    };
  },
);

export const forgetMemory = implementTool<{ memory_id: string }>('forget_memory', async (input, ctx) => {
  await refuseGuests(ctx, 'Agent memory');
  if (!(await deleteMemoryInScope(ctx.deps.db, ctx, input.memory_id)))
    throw new ToolError(`No memory ${input.memory_id} of this agent`, 'MEMORY_NOT_FOUND');
  return { deleted: true, memory_id: input.memory_id };
});

export const memoryToolImplementations = [saveMemory, recallMemory, forgetMemory];
