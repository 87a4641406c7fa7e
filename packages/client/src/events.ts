/** Helpers over the event union: narrowing by type and reading a USER_INPUT_REQUIRED request. */
import type { EventOf, PendingInput, RunEvent, RunEventType, TerminalEvent } from './types.ts';

/** Narrows an event to one type: `if (isEvent(e, 'TEXT_MESSAGE_CONTENT')) e.delta`. */
export function isEvent<T extends RunEventType>(event: RunEvent, type: T): event is EventOf<T> {
  return event.type === type;
}

/** RUN_FINISHED or RUN_ERROR: the stream ends after it. */
export function isTerminalEvent(event: RunEvent): event is TerminalEvent {
  return event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR';
}

/** What a USER_INPUT_REQUIRED event asks: the fields of a pending request (without its `created_at`). */
export type UserInputRequest = Omit<PendingInput, 'created_at'>;

/**
 * The request of a CUSTOM USER_INPUT_REQUIRED event, ready for `client.input.answer(taskId, request, ...)`;
 * undefined for any other event.
 */
export function userInputRequest(event: RunEvent): UserInputRequest | undefined {
  if (event.type !== 'CUSTOM' || event.name !== 'USER_INPUT_REQUIRED') return undefined;
  return event.data as unknown as UserInputRequest;
}
