import { Connection } from '@temporalio/client';
import type { TemporalConnectionOptions } from '../src/connections/temporal.ts';

/** temporal.api.enums.v1.TaskQueueType values (the proto package is not a direct dependency). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const TASK_QUEUE_TYPE_ACTIVITY = 2;

/**
 * Waits until a worker polls the task queue for workflow and activity tasks. The api
 * answers /healthz before the worker has bundled its workflows, and an "idle" memory
 * reading taken then would catch the worker mid-start.
 */
export async function waitForWorker(
  temporal: TemporalConnectionOptions,
  taskQueue: string,
  timeoutMs = 90_000,
  namespace = 'default',
): Promise<void> {
  const connection = await Connection.connect(temporal);
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const polled = await Promise.all(
        [TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY].map(async (taskQueueType) => {
          const res = await connection.workflowService.describeTaskQueue({
            namespace,
            taskQueue: { name: taskQueue },
            taskQueueType,
          });
          return (res.pollers?.length ?? 0) > 0;
        }),
      );
      if (polled.every(Boolean)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`no worker polled ${taskQueue} within ${timeoutMs / 1000}s`);
  } finally {
    await connection.close();
  }
}
