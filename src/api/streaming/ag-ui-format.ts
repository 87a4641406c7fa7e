import type { RunEvent } from '../../shared/events.ts';
import type { StreamFormat } from './relay.ts';

/** The ids of an AG-UI run: the client's threadId and runId, and our task (the thread's, in the caller's org). */
export interface AgUiIds {
  threadId: string;
  runId: string;
  taskId: string;
}

/**
 * Our events in AG-UI's own dialect (camelCase, as `@ag-ui/core` defines them), for AG-UI clients
 * such as `@ag-ui/client`'s HttpAgent and CopilotKit. The run's ids are the client's: its threadId
 * and its runId; our run and task ids travel in RUN_STARTED's metadata. Human input stays a
 * CUSTOM event (`USER_INPUT_REQUIRED`, its value says where to answer); HEARTBEAT becomes an SSE
 * comment (AG-UI has no keepalive event).
 */
export function agUiFormat(ids: AgUiIds): StreamFormat {
  return { frames: (event) => agUiEvents(event, ids), heartbeat: () => undefined };
}

export function agUiEvents(event: RunEvent, { threadId, runId, taskId }: AgUiIds): object[] {
  const timestamp = event.timestamp;
  switch (event.type) {
    case 'RUN_STARTED':
      return [
        {
          type: 'RUN_STARTED',
          timestamp,
          threadId,
          runId,
          metadata: { run_id: event.run_id, task_id: taskId, mode: event.mode, routing_reason: event.routing_reason },
        },
      ];
    case 'RUN_FINISHED':
      return [{ type: 'RUN_FINISHED', timestamp, threadId, runId, result: event.result }];
    case 'RUN_ERROR':
      return [{ type: 'RUN_ERROR', timestamp, message: event.message, code: event.code }];
    case 'TEXT_MESSAGE_START':
      return [{ type: 'TEXT_MESSAGE_START', timestamp, messageId: event.message_id, role: event.role }];
    case 'TEXT_MESSAGE_CONTENT':
      return [{ type: 'TEXT_MESSAGE_CONTENT', timestamp, messageId: event.message_id, delta: event.delta }];
    case 'TEXT_MESSAGE_END':
      return [{ type: 'TEXT_MESSAGE_END', timestamp, messageId: event.message_id }];
    case 'TOOL_CALL_START':
      return [
        { type: 'TOOL_CALL_START', timestamp, toolCallId: event.tool_call_id, toolCallName: event.tool_call_name },
      ];
    case 'TOOL_CALL_ARGS':
      return [{ type: 'TOOL_CALL_ARGS', timestamp, toolCallId: event.tool_call_id, delta: event.delta }];
    case 'TOOL_CALL_END':
      return [{ type: 'TOOL_CALL_END', timestamp, toolCallId: event.tool_call_id }];
    case 'TOOL_CALL_RESULT':
      return [
        {
          type: 'TOOL_CALL_RESULT',
          timestamp,
          messageId: `${event.tool_call_id}-result`,
          toolCallId: event.tool_call_id,
          content: event.content,
          role: 'tool',
        },
      ];
    case 'STATE_SNAPSHOT':
      return [{ type: 'STATE_SNAPSHOT', timestamp, snapshot: event.state }];
    case 'STATE_DELTA':
      return [{ type: 'STATE_DELTA', timestamp, delta: event.delta }];
    case 'HEARTBEAT':
      return [];
    case 'CUSTOM':
      return [{ type: 'CUSTOM', timestamp, name: event.name, value: customValue(event, taskId) }];
  }
}

/** A custom event's value; USER_INPUT_REQUIRED also says where the client answers it. */
function customValue(event: Extract<RunEvent, { type: 'CUSTOM' }>, taskId: string): Record<string, unknown> {
  if (event.name !== 'USER_INPUT_REQUIRED') return event.data;
  return {
    ...event.data,
    answer_url: `/api/tasks/${encodeURIComponent(taskId)}/input`,
    pending_url: `/api/tasks/${encodeURIComponent(taskId)}/pending-input`,
  };
}
