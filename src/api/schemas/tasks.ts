import { z } from 'zod';
import { pageLimit } from './common.ts';
import { runStatuses } from '../../shared/run-status.ts';
import { backgroundRunSchema } from './runs.ts';

/** Largest page GET /api/tasks returns; the spec leaves the maximum to us. */
export const MAX_TASK_PAGE = 200;
export const DEFAULT_TASK_PAGE = 50;

const timestamp = z.string().describe('ISO 8601 UTC');
const taskRunStatusSchema = z
  .enum(['idle', 'pending', 'running', 'completed', 'failed'])
  .describe(
    'Task-level status, derived from the latest run: idle (no run yet), pending, running, completed, failed (also when the latest run was cancelled)',
  );
const runStatusSchema = z
  .enum(runStatuses)
  .describe(
    "The run's status. pending: accepted, not started yet (its workflow is starting, it waits behind an earlier run of " +
      'its task, or its org is at its limit of concurrent runs: a SYSTEM_STATUS `queued` event then gives its place; it ' +
      'starts when a slot frees). A run holds its org slot until it ends, waiting for input or approval included',
  );
const runErrorSchema = z
  .object({ code: z.string(), message: z.string() })
  .describe('Why the run failed; null unless it failed');

export const taskIdParams = z.object({ task_id: z.string().min(1).max(100) });

export const taskListQuery = z.object({
  limit: pageLimit(MAX_TASK_PAGE, DEFAULT_TASK_PAGE).describe(
    `Page size, 1..${MAX_TASK_PAGE} (default ${DEFAULT_TASK_PAGE}); newest tasks first; there is no offset`,
  ),
});

/** Body of POST /api/run/async: the background run metadata plus where to follow it. */
export const asyncRunSchema = backgroundRunSchema
  .extend({
    run_id: z.string().describe('Same as `id`'),
    status_url: z.string().describe('GET this to poll: /api/run/{task_id}/status'),
    stream_url: z.string().describe('GET this for the live SSE stream: /api/tasks/{task_id}/stream'),
    events_url: z.string().describe('GET this for the durable event history: /api/runs/{run_id}/events'),
  })
  .meta({ id: 'AsyncRun' });

/** A run as the task views list it. */
export const runSummarySchema = z
  .object({
    id: z.string(),
    status: runStatusSchema,
    mode: z.enum(['fast', 'deep']),
    routing_reason: z.string(),
    created_at: timestamp,
    finished_at: timestamp.nullable(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    credits_used: z.number().int(),
  })
  .meta({ id: 'RunSummary' });

/** The latest run as GET /api/run/{task_id}/status reports it. */
export const runProgressSchema = runSummarySchema
  .extend({
    updated_at: timestamp,
    event_count: z.number().int().describe('Events stored so far in the run history (HEARTBEAT frames are not stored)'),
    error: runErrorSchema.nullable(),
  })
  .meta({ id: 'RunProgress' });

export const runStatusResponseSchema = z
  .object({
    task_id: z.string(),
    run_status: taskRunStatusSchema,
    active: z
      .boolean()
      .describe('True while the latest run is not terminal (pending, planning, awaiting_approval, executing, paused)'),
    run: runProgressSchema.nullable().describe('The latest run; null for a task without runs'),
  })
  .meta({ id: 'TaskRunStatus' });

/** One item of GET /api/tasks. */
export const taskSummarySchema = z
  .object({
    id: z.string(),
    title: z.string().describe('The start of the first user message'),
    agent_id: z.string(),
    user_id: z.string().describe('The user who started the task'),
    run_status: taskRunStatusSchema,
    latest_run_id: z.string().nullable(),
    latest_run_status: runStatusSchema
      .nullable()
      .describe("The latest run's own status (the spec's run statuses); null for a task without runs"),
    source: z
      .object({ flow_id: z.string(), flow_name: z.string(), kind: z.string(), external_id: z.string() })
      .nullable()
      .describe(
        'The flow (trigger) that started the task, with the external id of its first event; null for tasks started over the API',
      ),
    created_at: timestamp,
    updated_at: timestamp.describe('Last change: a new turn or a stored answer'),
  })
  .meta({ id: 'TaskSummary' });

export const taskListSchema = z
  .object({ tasks: z.array(taskSummarySchema), count: z.number().int() })
  .meta({ id: 'TaskList' });

/** GET /api/tasks/{task_id}: the task with every run, newest first. */
export const taskDetailSchema = taskSummarySchema
  .extend({
    org_id: z.string(),
    message_count: z.number().int(),
    runs: z.array(runSummarySchema).describe('Every run of the task, newest first'),
  })
  .meta({ id: 'Task' });

export const messageRecordSchema = z
  .object({
    id: z.string(),
    role: z
      .enum(['user', 'assistant', 'system', 'tool'])
      .describe('system: deep-mode step instructions; tool: a tool result'),
    content: z.string().describe('Text; for a tool result, its JSON'),
    parts: z
      .object({
        tool_calls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })).optional(),
        tool_call_id: z.string().optional(),
        tool_name: z.string().optional(),
      })
      .nullable()
      .describe('assistant: the tool calls it made; tool: which call this result answers'),
    run_id: z.string().nullable().describe('The run whose turn added the message'),
    position: z.number().int().describe('1-based place in the conversation'),
    created_at: timestamp,
  })
  .meta({ id: 'Message' });

export const messageListSchema = z
  .object({ task_id: z.string(), messages: z.array(messageRecordSchema), count: z.number().int() })
  .meta({ id: 'MessageList' });

export const taskDeletedSchema = z
  .object({ status: z.literal('deleted'), message: z.string() })
  .meta({ id: 'TaskDeleted' });
