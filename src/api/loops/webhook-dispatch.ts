import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { listUndispatchedDeliveries, markDispatched } from '../../db/webhooks.ts';
import { webhookWorkflowId, type WebhookDeliveryInput } from '../../shared/webhook-delivery-types.ts';
import { runPriority } from '../../shared/run-priority.ts';
import { webhookDeliveryWorkflow } from '../../workflows/index.ts';
import type { ApiDeps } from '../deps.ts';
import { every } from './every.ts';

const BATCH = 100;

type DispatchDeps = Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>;

/**
 * Starts the delivery workflow of every new webhook delivery (the trigger run_events_webhooks
 * writes them with their event). Every api runs one; two starting the same delivery are
 * harmless: the workflow id is the delivery's, and a duplicate start is refused.
 */
export function startWebhookDispatcher(deps: DispatchDeps): { stop(): Promise<void> } {
  return every(deps.config.webhooks.dispatchIntervalMs, async () => {
    try {
      await dispatchWebhooks(deps);
    } catch (err) {
      deps.logger.warn({ err }, 'webhook dispatch pass failed; retrying on the next pass');
    }
  });
}

export async function dispatchWebhooks(deps: DispatchDeps): Promise<number> {
  const deliveries = await listUndispatchedDeliveries(deps.db, BATCH);
  for (const { id, orgId } of deliveries) {
    await startDeliveryWorkflow(deps, id, 0, orgId);
    await markDispatched(deps.db, id);
  }
  return deliveries.length;
}

/**
 * Starts the workflow that sends delivery `deliveryId` (`resend` 0) or re-sends it (1, 2, …); its org
 * is its fairness key, so one org's flood of deliveries does not hold up another's.
 */
export async function startDeliveryWorkflow(
  { temporal, config }: DispatchDeps,
  deliveryId: string,
  resend: number,
  orgId: string,
): Promise<void> {
  const { retryInitialMs, retryMaxMs, retryWindowMs, timeoutMs } = config.webhooks;
  const input: WebhookDeliveryInput = {
    deliveryId,
    resend,
    retry: { initialMs: retryInitialMs, maxMs: retryMaxMs, windowMs: retryWindowMs, timeoutMs },
  };
  try {
    await temporal.workflow.start(webhookDeliveryWorkflow, {
      taskQueue: config.temporal.taskQueue,
      workflowId: webhookWorkflowId(deliveryId, resend),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      priority: runPriority(orgId, 'background'),
      args: [input],
      staticSummary:
        resend === 0 ? `Webhook delivery ${deliveryId}` : `Webhook delivery ${deliveryId}, re-send ${resend}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
