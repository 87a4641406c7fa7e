import { z } from 'zod';
import { defineTool } from './definition.ts';

/** Limits of one memory; the api and the tools share them. */
export const MEMORY_CONTENT_MAX = 8000;
export const MEMORY_TAGS_MAX = 20;
export const MEMORY_TAG_MAX = 50;
export const RECALL_LIMIT_DEFAULT = 5;
export const RECALL_LIMIT_MAX = 20;

const tag = z
  .string()
  .trim()
  .min(1)
  .max(MEMORY_TAG_MAX)
  .transform((t) => t.toLowerCase());

export const saveMemoryTool = defineTool({
  name: 'save_memory',
  kind: 'activity',
  description:
    'Store a fact worth remembering in future conversations (a preference, a decision, a name). Memory is long-term and ' +
    'shared by every conversation of this agent in this organization. Write one self-contained statement per memory. ' +
    'Returns {memory_id}.',
  input: z.object({
    content: z
      .string()
      .trim()
      .min(1)
      .max(MEMORY_CONTENT_MAX)
      .describe(`The fact to remember, at most ${MEMORY_CONTENT_MAX} characters`),
    tags: z
      .array(tag)
      .max(MEMORY_TAGS_MAX)
      .optional()
      .describe(`Up to ${MEMORY_TAGS_MAX} short labels (stored lower-case)`),
  }),
});

export const recallMemoryTool = defineTool({
  name: 'recall_memory',
  readOnly: true,
  kind: 'activity',
  description:
    'Search long-term memory by words (full-text: word forms match, e.g. "running" finds "run"; quotes for phrases, ' +
    '"or", and -word to exclude). Returns {memories: [{id, content, tags, created_at, rank}]}, best match first.',
  input: z.object({
    query: z.string().trim().min(1).max(500).describe('Words to look for'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(RECALL_LIMIT_MAX)
      .optional()
      .describe(`How many memories at most (default ${RECALL_LIMIT_DEFAULT})`),
    tag: tag.optional().describe('Only memories with this tag'),
  }),
});

export const forgetMemoryTool = defineTool({
  name: 'forget_memory',
  kind: 'activity',
  description:
    'Delete one memory of this agent by its id (from recall_memory), e.g. when the user says it is wrong or outdated. Returns {deleted: true}.',
  input: z.object({ memory_id: z.string().min(1).max(100) }),
});

export const memoryTools = [saveMemoryTool, recallMemoryTool, forgetMemoryTool];
