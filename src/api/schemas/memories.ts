import { z } from 'zod';
import { pageLimit } from './common.ts';
import { MEMORY_TAG_MAX } from '../../shared/tools/memory.ts';

/** Page size of GET /api/agents/{agent_id}/memories when `limit` is not given, and its largest value. */
export const MEMORY_PAGE_DEFAULT = 50;
export const MEMORY_PAGE_MAX = 200;

export const agentIdParams = z.object({ agent_id: z.string().min(1).max(100).describe('Agent id') });

export const memoryListQuery = z.object({
  limit: pageLimit(MEMORY_PAGE_MAX, MEMORY_PAGE_DEFAULT).describe(
    `Page size, 1..${MEMORY_PAGE_MAX} (default ${MEMORY_PAGE_DEFAULT})`,
  ),
  cursor: z
    .string()
    .optional()
    .describe('Opaque: the `next_cursor` of the previous page; omit for the newest memories'),
  q: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe(
      'Full-text search (English stemming, web-search syntax: words, "phrases", or, -word); narrows the list, keeps the newest-first order',
    ),
  tag: z
    .string()
    .trim()
    .min(1)
    .max(MEMORY_TAG_MAX)
    .optional()
    .describe('Only memories carrying this tag (compared lower-case, as tags are stored)'),
});

export const memoryRecordSchema = z
  .object({
    id: z.string(),
    content: z.string(),
    tags: z.array(z.string()),
    run_id: z.string().nullable().describe('The run whose agent saved it'),
    created_at: z.string().describe('ISO 8601 UTC'),
    updated_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'Memory' });

export const memoryPageSchema = z
  .object({
    agent_id: z.string(),
    memories: z.array(memoryRecordSchema).describe('Newest first'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null when this page is the last'),
    count: z.number().int().describe('Number of memories in this page'),
  })
  .meta({ id: 'MemoryPage' });
