import { invalidValue } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  EVENTS_PAGE_DEFAULT,
  EVENTS_PAGE_MAX,
  eventPageSchema,
  eventsQuerySchema,
  runIdParamsSchema,
} from '../schemas/events.ts';
import { loadVisibleRun } from '../services/run-access.ts';
import { runEventPage } from '../services/run-events.ts';
import { decodeCursor } from '../cursors.ts';

const badCursor = (msg: string) => invalidValue(['query', 'cursor'], msg);

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/runs/{run_id}/events',
    operationId: 'listRunEvents',
    summary: 'Page through the durable event history of a run',
    description:
      'Returns the stored events of a run in order, the same events (and ids) the streams send, HEARTBEAT excepted. ' +
      `\`limit\` is 1 to ${EVENTS_PAGE_MAX} (default ${EVENTS_PAGE_DEFAULT}). ` +
      "`cursor` is opaque: pass the previous page's `next_cursor` unchanged; a cursor that is malformed or was issued for " +
      'another run is 422. `next_cursor` is null only once the run is finished (completed, failed or cancelled) and the page ' +
      'ends with its last event; while the run is live every page carries a cursor, even an empty one, so a client can poll ' +
      'with it and never misses or repeats an event. Each page is one range read of the (run_id, seq) key, so its cost does ' +
      'not grow with the length of the history. Runs the caller may not see (another org, another agent than `X-Agent-Id`, ' +
      "or, for members and guests, another user's task) are 404, like unknown runs.",
    tags: ['runs'],
    auth: 'agent',
    rateLimit: 'events',
    cookie: true,
    params: runIdParamsSchema,
    query: eventsQuerySchema,
    responses: {
      200: { description: 'One page of events', schema: eventPageSchema },
      ...errorResponses,
    },
    async handler({ params, query, caller, agent }, { db }) {
      // Read the run before its events: if it was finished then, every event it will ever have is already stored.
      const run = await loadVisibleRun(db, params.run_id, caller, agent);
      let after = 0;
      if (query.cursor !== undefined) {
        const cursor = decodeCursor(query.cursor);
        if (!cursor)
          throw badCursor('Not a cursor issued by this API: pass `next_cursor` from the previous page unchanged');
        if (cursor.runId !== run.id) throw badCursor('This cursor belongs to another run');
        if (cursor.seq > run.lastEventSeq) throw badCursor('This cursor points past the end of the run');
        after = cursor.seq;
      }
      return runEventPage(db, run, after, query.limit);
    },
  }),
];
