import type { ResponseLink, RouteSpec } from '../route.ts';
import { pendingInputLinks } from '../schemas/links.ts';
import { humanInputRoutes } from '../routes/human-input.ts';
import { runRoutes } from '../routes/runs.ts';
import { streamRoutes } from '../routes/streams.ts';
import { taskRoutes } from '../routes/tasks.ts';
import { errorSchema } from '../schemas/common.ts';
import { widgetSessionRoute } from './session.ts';

const VISITOR_NOTE =
  ' **Widget gateway:** authenticated with a visitor token from POST /api/v1/widget/session instead of an API token, ' +
  'with no `X-Agent-Id` (the widget key names the agent), from an `Origin` the key allows. The visitor is a guest: ' +
  'every guest restriction applies, and only their own tasks are visible. Limited per widget key and per visitor.';

/**
 * The same operation as `base` (same schemas, same handler, so the same services) for a
 * widget visitor: mounted under /api/v1/widget with the visitor authentication.
 */
function forVisitor(base: RouteSpec, path: string, operationId: string): RouteSpec {
  return {
    ...base,
    path,
    operationId,
    tags: ['widget'],
    auth: 'visitor',
    cookie: false,
    rateLimit: undefined,
    description: `${base.description ?? base.summary}${VISITOR_NOTE}`,
    responses: {
      ...Object.fromEntries(Object.entries(base.responses).map(([status, r]) => [status, { ...r, links: undefined }])),
      400: base.responses[400] ?? {
        description: "The widget key's agent is no longer customer-facing",
        schema: errorSchema,
      },
      429: {
        description: 'A widget rate limit (per key or per visitor) or a run limit exceeded; see Retry-After',
        schema: errorSchema,
        headers: { 'Retry-After': 'Seconds to wait' },
      },
    },
  };
}

/** The base operation's links name the API's operations: a visitor's follow-ups are the gateway's own. */
function withLinks(route: RouteSpec, status: number, links: Record<string, ResponseLink>): RouteSpec {
  return { ...route, responses: { ...route.responses, [status]: { ...route.responses[status]!, links } } };
}

function byId(routes: RouteSpec[], operationId: string): RouteSpec {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return route;
}

/** The widget gateway: a session, then runs, streams, messages and human input of the visitor's own tasks. */
export const widgetRoutes: RouteSpec[] = [
  widgetSessionRoute,
  forVisitor(byId(runRoutes, 'startRun'), '/api/v1/widget/run', 'widgetStartRun'),
  forVisitor(byId(streamRoutes, 'streamTask'), '/api/v1/widget/tasks/{task_id}/stream', 'widgetStreamTask'),
  forVisitor(byId(taskRoutes, 'listTaskMessages'), '/api/v1/widget/tasks/{task_id}/messages', 'widgetListTaskMessages'),
  forVisitor(byId(humanInputRoutes, 'answerInput'), '/api/v1/widget/tasks/{task_id}/input', 'widgetAnswerInput'),
  withLinks(
    forVisitor(
      byId(humanInputRoutes, 'getPendingInput'),
      '/api/v1/widget/tasks/{task_id}/pending-input',
      'widgetGetPendingInput',
    ),
    200,
    pendingInputLinks('widgetAnswerInput'),
  ),
];
