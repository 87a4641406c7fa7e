import { runClients } from '../../shared/run-client.ts';
import { z } from 'zod';
import { runStatuses } from '../../shared/run-status.ts';
import { pageLimit } from './common.ts';

/** Page size of GET /api/runs when `limit` is not given, and its largest value. */
export const RUN_PAGE_DEFAULT = 50;
export const RUN_PAGE_MAX = 200;

/** The `status` filter's values: the spec's run statuses, and `needs_you` (waiting on the caller's input or approval). */
export const runListStatuses = [...runStatuses, 'needs_you'] as const;
export type RunListStatus = (typeof runListStatuses)[number];

/**
 * Where a run came from: its task (a flow's, a widget visitor's) or else the client that started it
 * (src/shared/run-client.ts); `api` for any other caller (see docs/api.md "Runs, across tasks").
 */
export const runSourceKinds = ['api', ...runClients, 'widget', 'flow'] as const;

const one = `(?:${runListStatuses.join('|')})`;
// A comma list of statuses, so a client without repeated query parameters can pass several.
const statusList = z.string().regex(new RegExp(`^${one}(?:,${one})*$`));
// An ISO 8601 date-time with a zone (Z or ±hh:mm), or a plain date (UTC midnight).
const isoTime = z.iso.datetime({ offset: true }).or(z.iso.date());

export const runListQuery = z.object({
  limit: pageLimit(RUN_PAGE_MAX, RUN_PAGE_DEFAULT).describe(
    `Page size, 1..${RUN_PAGE_MAX} (default ${RUN_PAGE_DEFAULT})`,
  ),
  cursor: z.string().optional().describe('Opaque: the `next_cursor` of the previous page; omit for the newest runs'),
  status: z
    .union([statusList, z.array(statusList)])
    .optional()
    .describe(
      `Only runs in one of these statuses: ${runListStatuses.join(', ')}. Repeat the parameter or give a comma list. ` +
        '`needs_you`: runs waiting on your answer (a question of a run you started, or an approval you may decide)',
    ),
  run_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe("Only this run: how a client that has only a run's id finds its agent and task"),
  agent_id: z.string().min(1).max(100).optional().describe('Only runs of this agent'),
  user_id: z.string().min(1).max(100).optional().describe('Only runs of tasks this user started'),
  source: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      '`cli`, `sdk`, `console`, `mcp`, `ag-ui`, `api` (another caller), `widget`, `flow` (any flow), or a flow name (runs of tasks that flow started)',
    ),
  since: isoTime.optional().describe('Only runs created at or after this time (ISO 8601)'),
  until: isoTime.optional().describe('Only runs created before this time (ISO 8601)'),
});
export type RunListQuery = z.infer<typeof runListQuery>;

export const runListItemSchema = z
  .object({
    run_id: z.string(),
    task_id: z.string(),
    task_title: z.string(),
    agent_id: z.string(),
    agent_name: z.string(),
    status: z.enum(runStatuses),
    needs_you: z.boolean().describe('The run waits on your answer (a question to you, or an approval you may decide)'),
    mode: z.enum(['fast', 'deep']),
    source: z
      .object({
        kind: z.enum(runSourceKinds),
        flow_id: z.string().nullable(),
        flow_name: z.string().nullable(),
      })
      .describe(
        '`flow` for tasks a flow started, `widget` for tasks of widget visitors; else the client that started the run: ' +
          '`cli`, `sdk` and `console` (they send `X-Agent-Run-Client`), `mcp` (the /mcp endpoint), `ag-ui` (POST /api/ag-ui/run), `api` for any other caller',
      ),
    started_at: z.string().describe('When the run was created (ISO 8601 UTC)'),
    finished_at: z.string().nullable().describe('When the run ended; null while it is active'),
    usage: z.object({
      input_tokens: z.number().int(),
      output_tokens: z.number().int(),
      credits_used: z.number().int(),
    }),
    user: z
      .object({ id: z.string(), name: z.string(), email: z.string(), visitor: z.boolean() })
      .describe('Who started the task'),
  })
  .meta({ id: 'RunListItem' });

export const runListSchema = z
  .object({
    runs: z.array(runListItemSchema).describe('Newest first'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null when this page is the last'),
    count: z.number().int().describe('Number of runs in this page'),
  })
  .meta({ id: 'RunList' });
