import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { RUN_PAGE_DEFAULT, RUN_PAGE_MAX, runListQuery, runListSchema } from '../schemas/run-list.ts';
import { listRuns } from '../services/run-list.ts';

export const runListRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/runs',
    operationId: 'listRuns',
    summary: 'Runs across agents and tasks, newest first',
    description:
      'Organization-scoped, across agents; no X-Agent-Id needed. Owners and admins see every run of the org; members ' +
      'and guests the runs of tasks they started on agents they were granted. Newest first (by creation time), paged ' +
      `with \`cursor\`/\`next_cursor\`; \`limit\` 1 to ${RUN_PAGE_MAX} (default ${RUN_PAGE_DEFAULT}). Filters combine ` +
      '(AND); the statuses of `status` are alternatives (OR). `source` is derived from the task: `flow` when a flow ' +
      'started it, `widget` when a widget visitor did, `api` otherwise (the CLI, SDK, console and MCP are not told ' +
      'apart). A `cursor` not issued for this caller is 422.',
    tags: ['runs'],
    auth: 'user',
    cookie: true,
    query: runListQuery,
    responses: {
      200: { description: 'The runs, newest first; `count` is the number returned', schema: runListSchema },
      400: { description: '`since` or `until` is not a real time', schema: errorSchema },
      ...errorResponses,
    },
    async handler({ query, caller }, { db }) {
      return listRuns(db, caller, query);
    },
  }),
];
