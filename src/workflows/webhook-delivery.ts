import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { WebhookDeliveryInput } from '../shared/webhook-delivery-types.ts';

/**
 * Delivers one outbound webhook: one activity, retried by Temporal with exponential backoff
 * (doubling from `retry.initialMs` up to `retry.maxMs`) until the receiver answers 2xx or the
 * window (24 h by default) closes; then the delivery is marked failed (it can still be re-sent).
 * Every attempt carries the same `webhook-id`, so a receiver keeps each event once.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<'delivered' | 'failed'> {
  const { retry } = input;
  const { sendWebhook } = proxyActivities<Activities>({
    startToCloseTimeout: retry.timeoutMs + 5_000,
    scheduleToCloseTimeout: retry.windowMs,
    retry: { initialInterval: retry.initialMs, backoffCoefficient: 2, maximumInterval: retry.maxMs }, // no attempt limit: the window ends it
  });
  const { failWebhookDelivery } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds' });
  try {
    await sendWebhook(input);
    return 'delivered';
  } catch (err) {
    await failWebhookDelivery({
      deliveryId: input.deliveryId,
      error: (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : String(err),
    });
    return 'failed';
  }
}
