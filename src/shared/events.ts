import { z } from 'zod';

/**
 * The AG-UI events of a run, in our wire format (snake_case field names).
 * One discriminated union checks what activities store and what the relay sends.
 * `timestamp` is milliseconds since the Unix epoch, as in AG-UI.
 */
const base = { timestamp: z.number().int() };
const jsonObject = z.record(z.string(), z.unknown());

export const runModes = ['fast', 'deep'] as const;
export type RunMode = (typeof runModes)[number];

export const customEventNames = [
  'THOUGHT',
  'PLAN_CREATED',
  'USER_INPUT_REQUIRED',
  'ARTIFACT_CREATED',
  'ARTIFACT_UPDATED',
  'ARTIFACT_REVISED',
  'ARTIFACT_COMPLETED',
  'ARTIFACT_PROGRESS',
  'ARTIFACT_ERROR',
  'USAGE',
  'SYSTEM_STATUS',
  'STOPPING',
] as const;

export const runEventSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('RUN_STARTED'),
      ...base,
      thread_id: z.string(),
      run_id: z.string(),
      mode: z.enum(runModes),
      routing_reason: z.string(),
    }),
    z.object({ type: z.literal('RUN_FINISHED'), ...base, run_id: z.string(), result: jsonObject }),
    z.object({
      type: z.literal('RUN_ERROR'),
      ...base,
      run_id: z.string(),
      message: z.string(),
      code: z.string(),
      details: jsonObject,
    }),
    z.object({ type: z.literal('TEXT_MESSAGE_START'), ...base, message_id: z.string(), role: z.literal('assistant') }),
    z.object({ type: z.literal('TEXT_MESSAGE_CONTENT'), ...base, message_id: z.string(), delta: z.string().min(1) }),
    z.object({ type: z.literal('TEXT_MESSAGE_END'), ...base, message_id: z.string() }),
    z.object({
      type: z.literal('TOOL_CALL_START'),
      ...base,
      tool_call_id: z.string(),
      tool_call_name: z.string(),
      metadata: jsonObject,
    }),
    z.object({ type: z.literal('TOOL_CALL_ARGS'), ...base, tool_call_id: z.string(), delta: z.string() }),
    z.object({ type: z.literal('TOOL_CALL_END'), ...base, tool_call_id: z.string() }),
    z.object({ type: z.literal('TOOL_CALL_RESULT'), ...base, tool_call_id: z.string(), content: z.string() }),
    z.object({ type: z.literal('STATE_SNAPSHOT'), ...base, state: jsonObject }),
    z.object({ type: z.literal('STATE_DELTA'), ...base, delta: z.array(z.unknown()) }),
    z.object({ type: z.literal('HEARTBEAT'), ...base }),
    z.object({ type: z.literal('CUSTOM'), ...base, name: z.enum(customEventNames), data: jsonObject }),
  ])
  .meta({ id: 'RunEvent' }); // a named schema of the OpenAPI document, so the typed client shares the union

export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventType = RunEvent['type'];
/** An event before it is stamped with its timestamp. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'timestamp'> : never) : never;

/** Events after which a run's stream ends. Every run emits exactly one. */
export function isTerminalEvent(event: Pick<RunEvent, 'type'>): boolean {
  return event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR';
}

/** The `event_name` of a stored record: the custom name for CUSTOM events, else the type. */
export function eventName(event: RunEventInput | RunEvent): string {
  return event.type === 'CUSTOM' ? event.name : event.type;
}

export { runErrorCodes } from './run-error-codes.ts';
