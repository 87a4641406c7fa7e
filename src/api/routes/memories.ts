import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  MEMORY_PAGE_DEFAULT,
  MEMORY_PAGE_MAX,
  agentIdParams,
  memoryListQuery,
  memoryPageSchema,
} from '../schemas/memories.ts';
import { loadMemoryAgent, memoryPage } from '../services/memories.ts';

export const memoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/agents/{agent_id}/memories',
    operationId: 'listAgentMemories',
    summary: "Read an agent's long-term memory, newest first",
    description:
      'The memories the agent saved with its `save_memory` tool (and may recall with `recall_memory`). Memory belongs to ' +
      'an agent within one organization and is shared by all its conversations, so it is listed per agent, not per user. ' +
      'Each memory has `id`, `content`, `tags`, the `run_id` that saved it, and timestamps. ' +
      `Newest first (created_at, then id). \`limit\` is 1 to ${MEMORY_PAGE_MAX} (default ${MEMORY_PAGE_DEFAULT}); ` +
      "`cursor` is opaque: pass the previous page's `next_cursor` unchanged (a malformed cursor, or one from another " +
      "agent's list, is 422); `next_cursor` is null on the last page. `q` narrows the list to full-text matches " +
      '(PostgreSQL English stemming: "running" finds "run"; web-search syntax) without reordering it, so paging works ' +
      "the same; the agent's `recall_memory` tool is the ranked search. `tag` keeps memories with that tag. " +
      'Access: the path agent is checked like `X-Agent-Id`: an unknown agent is 404, an agent of another organization ' +
      "or (for members) one not granted to the caller is 403. Guests get 403: memory holds facts from every user's conversations.",
    tags: ['agents'],
    auth: 'agent',
    rateLimit: 'memories',
    params: agentIdParams,
    query: memoryListQuery,
    responses: {
      200: { description: 'One page of memories', schema: memoryPageSchema },
      ...errorResponses,
    },
    async handler({ params, query, caller, agent }, { db }) {
      return memoryPage(db, await loadMemoryAgent(db, params.agent_id, caller, agent), query);
    },
  }),
];
