import type { ResponseLink } from '../route.ts';

// The OpenAPI links of the answers that name a run or a pending request: where a client goes next
// with their ids. schemathesis's stateful phase follows them, so the contract test reaches past 404.

const taskOf = (expression: string) => ({ task_id: expression });

/** From an answer naming a run (`id`) and its task (`task_id`). */
export function runLinks(): Record<string, ResponseLink> {
  const task = taskOf('$response.body#/task_id');
  return {
    GetRunStatus: { operationId: 'getRunStatus', description: "The run's progress", parameters: task },
    GetTask: { operationId: 'getTask', description: 'The task the run belongs to', parameters: task },
    GetPendingInput: {
      operationId: 'getPendingInput',
      description: 'The question or approval the run waits on, if any',
      parameters: task,
    },
    ListRunEvents: {
      operationId: 'listRunEvents',
      description: "The run's event history",
      parameters: { run_id: '$response.body#/id' },
    },
    CommentOnRun: {
      operationId: 'commentOnRun',
      description: 'Steer the run with a comment',
      parameters: { ...task, run_id: '$response.body#/id' },
    },
    CancelRun: { operationId: 'cancelRun', description: 'Cancel the run', parameters: task },
  };
}

/**
 * From a pending request to its answer (`answerOperationId`: the API's or the widget's): the ids and
 * type it names, dismissing it (`cancelled: true` answers any type).
 */
export function pendingInputLinks(answerOperationId: string): Record<string, ResponseLink> {
  return {
    DismissInput: {
      operationId: answerOperationId,
      description: 'Answer the pending request (here: dismiss it, which any input type accepts)',
      parameters: taskOf('$request.path.task_id'),
      requestBody: {
        request_id: '$response.body#/request_id',
        run_id: '$response.body#/run_id',
        input_type: '$response.body#/input_type',
        cancelled: true,
      },
    },
  };
}
