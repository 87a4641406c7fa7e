import { z } from 'zod';

export const requestedModes = ['auto', 'fast', 'deep'] as const;
export type RequestedMode = (typeof requestedModes)[number];

export const multitaskStrategies = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export type MultitaskStrategy = (typeof multitaskStrategies)[number];

export const messageRoles = ['user', 'assistant', 'system', 'developer'] as const;

/** Roles that instruct the model with the operator's authority: refused unless the agent allows them. */
export const instructionRoles: readonly string[] = ['system', 'developer'];

export const requestMessageSchema = z.object({
  role: z
    .enum(messageRoles)
    .describe(
      '`user` or `assistant` turns of the conversation. `system` and `developer` messages are refused with 400 unless the ' +
        "agent's settings say `allow_instruction_messages: true`: a caller cannot instruct the model with the operator's authority. " +
        'Where allowed, `developer` is stored as `system`.',
    ),
  content: z.string().max(100_000),
});

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
  if (last.role !== 'user') return 'the last message must be from the user';
  if (last.content.trim() === '') return 'no user query: the last user message is empty';
  return undefined;
}
