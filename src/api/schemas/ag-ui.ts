import { z } from 'zod';
import { clientToolSchema, requestedModes, timezoneSchema } from '../../shared/run-request.ts';

/**
 * AG-UI's RunAgentInput (the body `@ag-ui/client`'s HttpAgent and CopilotKit post), as far as we
 * read it; unknown fields are accepted and ignored, as the protocol asks.
 */
const textPart = z.looseObject({ type: z.string(), text: z.string().optional() });

export const agUiMessageSchema = z.looseObject({
  id: z.string().max(200).optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer', 'tool', 'activity', 'reasoning']),
  content: z.union([z.string().max(100_000), z.array(textPart).max(100)]).optional(),
  toolCallId: z.string().min(1).max(200).optional().describe('On a tool message: the call it answers'),
});

export const runAgentInputSchema = z
  .looseObject({
    threadId: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be 1 to 100 letters, digits or _ . : -')
      .describe(
        'The conversation, a thread of your organization: a new id starts a task (its id in RUN_STARTED.metadata.task_id), a known one continues it; the same id in another organization is another thread. One of your task ids continues that task',
      ),
    runId: z
      .string()
      .min(1)
      .max(200)
      .describe(
        'The client’s id of this run; RUN_STARTED and RUN_FINISHED carry it (our run id is in RUN_STARTED.metadata.run_id, our task id in metadata.task_id)',
      ),
    messages: z
      .array(agUiMessageSchema)
      .max(1000)
      .meta({ minItems: 1 })
      .describe(
        'The conversation so far. A new thread stores its user, assistant and system messages; a continued one only the new turn (the stored conversation is the record): the results of the frontend tool calls its last run ended with (`tool` messages with `toolCallId`) and the last user message. Activity and reasoning messages are not read',
      ),
    tools: z
      .array(clientToolSchema)
      .max(100)
      .optional()
      .describe(
        'Frontend tools (CopilotKit actions), offered to the model besides the agent’s own, as `client_tools` of ' +
          'POST /api/run. When the model calls one, the call streams as TOOL_CALL_START, TOOL_CALL_ARGS and ' +
          'TOOL_CALL_END and the run ends: RUN_FINISHED with `result.outcome` `client_tool_calls` (no ' +
          'TOOL_CALL_RESULT). Run the tool and continue the thread with its result as a `tool` message ' +
          '(`toolCallId`). A name with `__` is 422; two tools of one name, or the name of a built-in tool, are 400',
      ),
    context: z.array(z.unknown()).optional().describe('Not read'),
    state: z.unknown().optional().describe('Not read'),
    forwardedProps: z
      .looseObject({
        mode: z.enum(requestedModes).optional().describe('As `mode` of POST /api/run (default auto)'),
        timezone: timezoneSchema.optional().describe('As `timezone` of POST /api/run'),
      })
      .optional(),
  })
  .meta({ id: 'RunAgentInput' });

export type RunAgentInput = z.infer<typeof runAgentInputSchema>;

export const agUiEventSchema = z
  .looseObject({ type: z.string(), timestamp: z.number().int().optional() })
  .describe('An AG-UI event as `@ag-ui/core` defines it (camelCase fields)')
  .meta({ id: 'AgUiEvent' });
