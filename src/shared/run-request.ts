import { z } from 'zod';

export const requestedModes = ['auto', 'fast', 'deep'] as const;
export type RequestedMode = (typeof requestedModes)[number];

export const multitaskStrategies = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export type MultitaskStrategy = (typeof multitaskStrategies)[number];

export const messageRoles = ['user', 'assistant', 'system', 'developer', 'tool'] as const;

/** Roles that instruct the model with the operator's authority: refused unless the agent allows them. */
export const instructionRoles: readonly string[] = ['system', 'developer'];

const messageContent = z.string().max(100_000);

/**
 * A turn of the conversation. A union on `role`, so the document says what the check enforces: a
 * `tool` message has its `tool_call_id` (on other roles it is not read).
 */
export const requestMessageSchema = z.discriminatedUnion('role', [
  z.object({
    role: z
      .enum(['user', 'assistant', 'system', 'developer'])
      .describe(
        '`user` or `assistant` turns of the conversation. `system` and `developer` messages are refused with 400 unless the ' +
          "agent's settings say `allow_instruction_messages: true`: a caller cannot instruct the model with the operator's authority. " +
          'Where allowed, `developer` is stored as `system`.',
      ),
    content: messageContent.describe('The text'),
  }),
  z.object({
    role: z
      .literal('tool')
      .describe('The result of a client tool call the task’s last run ended with (see `client_tools`)'),
    content: messageContent.describe('The tool’s result (JSON or text)'),
    tool_call_id: z
      .string({ error: 'tool_call_id is required on a tool message' })
      .min(1)
      .max(200)
      .describe('The `id` of the call in the last run’s `result.client_tool_calls`'),
  }),
]);

/** What a provider accepts as a function name; `__` is left to tool-server tools (`server__tool`). */
const CLIENT_TOOL_NAME = /^(?!.*__)[A-Za-z0-9_-]{1,64}$/;

/** A tool the caller runs itself (an AG-UI frontend tool, a CopilotKit action): offered to the model for this run. */
export const clientToolSchema = z
  .object({
    name: z
      .string()
      .regex(CLIENT_TOOL_NAME, 'must be 1 to 64 letters, digits, _ or -, without `__` (the names of tool-server tools)')
      .describe(
        'The name the model calls it by: 1 to 64 letters, digits, `_` or `-`, no `__`; not the name of a built-in tool',
      ),
    description: z.string().max(4000).default('').describe('What the tool does, for the model'),
    parameters: z
      .looseObject({ type: z.literal('object').optional() })
      .default({ type: 'object', properties: {} })
      .describe('JSON Schema of its arguments: an object schema (default: no arguments)'),
  })
  .meta({ id: 'ClientTool' });

export type ClientToolRequest = z.infer<typeof clientToolSchema>;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * The IANA names the documented schema lists (canonical names and UTC). The check itself
 * (isTimeZone) also takes the aliases the runtime knows, e.g. `Europe/Kiev`.
 */
const documentedTimeZones = [...Intl.supportedValuesOf('timeZone'), 'UTC'];

/** An IANA time zone name (the document lists the canonical names). */
export const timezoneSchema = z
  .string()
  .refine(isTimeZone, 'must be an IANA time zone name')
  .meta({ enum: documentedTimeZones });

/**
 * Body of POST /api/run and POST /api/run/async. `threadId` is accepted for `task_id`;
 * giving both is refused unless they name the same task (documented as "not both").
 */
export const runRequestSchema = z
  .object({
    messages: z.array(requestMessageSchema).max(1000).meta({ minItems: 1 }),
    task_id: z.string().min(1).max(100).optional(),
    threadId: z.string().min(1).max(100).optional(),
    mode: z.enum(requestedModes).default('auto'),
    stream: z.boolean().default(true),
    timezone: timezoneSchema.optional(),
    client_tools: z
      .array(clientToolSchema)
      .max(100)
      .optional()
      .describe(
        'Tools the caller runs itself (as AG-UI frontend tools), offered to the model in this run besides the ' +
          'agent’s own. When the model calls one, the run streams the call (TOOL_CALL_START, TOOL_CALL_ARGS, ' +
          'TOOL_CALL_END) and ends `completed` with `result.outcome` `client_tool_calls` and `result.client_tool_calls` ' +
          '(`id`, `name`, `arguments`); nothing runs it on the server. Run it, then continue the task (`task_id`) ' +
          'with a `tool` message per call (`tool_call_id`, the result as `content`) and the tools again: the results ' +
          'join the conversation before the next model step. A call left unanswered is stored as an error result. ' +
          'Two tools of one name, or the name of a built-in tool, are 400. With `mode: auto` such a run is fast; ' +
          '`mode: deep` and a `multitask_strategy` other than `reject` are 400 with client tools.',
      ),
    multitask_strategy: z
      .enum(multitaskStrategies)
      .default('reject')
      .describe(
        'What happens when `task_id` names a task whose run has not ended. `reject` (default): 409, nothing stored. ' +
          '`enqueue`: the new run is stored `pending` and waits; it starts when every earlier run of the task has ended ' +
          '(in order, if several wait), and its message joins the conversation then, after what the earlier runs wrote. ' +
          '`interrupt`: the running run is cancelled (its events kept; it ends `cancelled`, RUN_ERROR code CANCELLED), ' +
          'runs waiting in the queue are cancelled without starting, and the new run starts when the running one has ended. ' +
          '`rollback`: as `interrupt`, and when the new run starts, the cancelled runs are deleted from the task with their ' +
          'messages and events. A waiting run is streamed like any other (its RUN_STARTED comes when it starts); its workflow ' +
          'appears in the Temporal UI when it starts. Concurrent requests on one task never make two runs active at once.',
      ),
  })
  .meta({ not: { required: ['task_id', 'threadId'] } } as never)
  .refine((b) => !(b.task_id && b.threadId && b.task_id !== b.threadId), {
    message: 'task_id and threadId name different tasks',
    path: ['threadId'],
  });

export type RunRequest = z.infer<typeof runRequestSchema>;

/**
 * The checks the spec answers with 400 rather than 422: the body is
 * well-formed, but there is nothing to run.
 */
export function runRequestProblem(body: RunRequest): string | undefined {
  if (body.messages.length === 0) return 'messages must not be empty';
  const last = body.messages[body.messages.length - 1]!;
  const continued = Boolean(body.task_id ?? body.threadId);
  if (!continued && body.messages.some((m) => m.role === 'tool'))
    return 'tool messages answer the client tool calls of a task’s last run: send them with its task_id';
  if (last.role === 'tool') return undefined;
  if (last.role !== 'user') return 'the last message must be from the user (or a tool result)';
  if (last.content.trim() === '') return 'no user query: the last user message is empty';
  return undefined;
}
