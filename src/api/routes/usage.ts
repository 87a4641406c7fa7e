import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, usageQuery, usageSchema } from '../schemas/usage.ts';
import { orgUsage } from '../services/usage.ts';

export const usageRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/admin/usage',
    operationId: 'getUsage',
    summary: "The organization's usage per day and agent, and the credits left",
    description:
      'Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403). Runs created in ' +
      `[\`since\`, \`until\`) (default: the last ${USAGE_DEFAULT_DAYS} UTC days, today included; at most ` +
      `${USAGE_MAX_DAYS} days) summed per UTC day and agent: runs, failed runs, input and output tokens and the ` +
      "credits they were billed (each run's USAGE event), per agent and in total. A run counts on the day it was " +
      'created, as GET /api/runs filters; runs of deleted tasks (and of expired widget visitors) no longer count. ' +
      '`credits`: the balance now, the daily rate of the last 7 days, how many days it lasts, and `low` (no credits ' +
      'left, or fewer than 3 days of them) with a `warning` sentence.',
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    query: usageQuery,
    responses: {
      200: { description: 'Usage in the window, and the credits left', schema: usageSchema },
      400: {
        description: '`since` or `until` is not a real time, `since` is not before `until`, or the window is too long',
        schema: errorSchema,
      },
      ...errorResponses,
    },
    async handler({ caller, query }, { db }) {
      return orgUsage(db, caller, query);
    },
  }),
];
