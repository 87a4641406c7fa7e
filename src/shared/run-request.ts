import { z } from 'zod';

export const requestedModes = ['auto', 'fast', 'deep'] as const;
export type RequestedMode = (typeof requestedModes)[number];

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

/** Body of POST /api/run and POST /api/run/async. `threadId` is accepted for `task_id`. */
export const runRequestSchema = z
  .object({
    messages: z.array(requestMessageSchema).max(1000),
    task_id: z.string().min(1).max(100).optional(),
    threadId: z.string().min(1).max(100).optional(),
    mode: z.enum(requestedModes).default('auto'),
    stream: z.boolean().default(true),
    timezone: z.string().refine(isTimeZone, 'must be an IANA time zone name').optional(),
  })
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
