/** `client.input`: what a blocked run waits for, and typed answers per input type. */
import type { Transport } from '../transport.ts';
import type {
  CallOptions,
  InputAnswer,
  InputRequestRef,
  InputResult,
  InputType,
  PendingInput,
  PendingInputResponse,
} from '../types.ts';

export type PendingInputState = { pending: false } | { pending: true; request: PendingInput };

export class Input {
  constructor(private readonly transport: Transport) {}

  /** Whether the task's run waits for input, and the request it waits on (GET /api/tasks/{task_id}/pending-input). */
  async pending(taskId: string, opts: CallOptions = {}): Promise<PendingInputState> {
    const body = await this.transport.json<PendingInputResponse>({
      method: 'GET',
      path: `/api/tasks/${encodeURIComponent(taskId)}/pending-input`,
      ...opts,
      idempotent: true,
    });
    return body.pending && body.request ? { pending: true, request: body.request } : { pending: false };
  }

  /**
   * Answers a request (POST /api/tasks/{task_id}/input). `request` is the USER_INPUT_REQUIRED data or
   * `pending().request`; the answer's fields follow its `input_type`, or `{ cancelled: true }` dismisses it.
   */
  answer<T extends InputType>(
    taskId: string,
    request: InputRequestRef<T>,
    answer: InputAnswer<T>,
    opts: CallOptions = {},
  ): Promise<InputResult> {
    const body = { ...answer, request_id: request.request_id, run_id: request.run_id, input_type: request.input_type };
    return this.transport.json({
      method: 'POST',
      path: `/api/tasks/${encodeURIComponent(taskId)}/input`,
      body,
      ...opts,
      idempotent: false,
    });
  }
}
