import { z } from 'zod';
import { pageLimit } from './common.ts';
import { runEventSchema } from '../../shared/events.ts';

/** Page size of GET /api/runs/{run_id}/events when `limit` is not given, and its largest value. */
export const EVENTS_PAGE_DEFAULT = 100;
export const EVENTS_PAGE_MAX = 1000;

export const runIdParamsSchema = z.object({ run_id: z.string().min(1).max(100).describe('Run id') });

export const eventsQuerySchema = z.object({
  cursor: z
    .string()
    .optional()
    .describe('Opaque: the `next_cursor` of the previous page; omit to start at the first event'),
  limit: pageLimit(EVENTS_PAGE_MAX, EVENTS_PAGE_DEFAULT).describe(
    `Page size, 1 to ${EVENTS_PAGE_MAX} (default ${EVENTS_PAGE_DEFAULT})`,
  ),
});

/** One stored event of a run (spec: "Run event record"). */
export const eventRecordSchema = z
  .object({
    id: z.string().describe('`<run_id>:<seq>`, the same id the streams send as the SSE `id:`'),
    run_id: z.string(),
    event_type: z.string().describe('The AG-UI type, e.g. TEXT_MESSAGE_CONTENT'),
    event_name: z.string().describe('The CUSTOM event name for CUSTOM events (e.g. USAGE), else the type'),
    payload: runEventSchema.describe('The event exactly as the streams send it'),
    created_at: z.string().describe('ISO 8601 UTC time the event was stored'),
  })
  .meta({ id: 'RunEventRecord' });

export const eventPageSchema = z
  .object({
    run_id: z.string(),
    events: z.array(eventRecordSchema).describe('In order of occurrence (ascending seq)'),
    next_cursor: z
      .string()
      .nullable()
      .describe(
        'Pass as `cursor` to get what follows. Null only when the run is finished and this page ends with its last event; a live run always has a cursor, even after an empty page',
      ),
    count: z.number().int().describe('Number of events in this page'),
  })
  .meta({ id: 'RunEventPage' });
