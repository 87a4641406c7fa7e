/** The event types an outbound webhook subscription can ask for (the trigger run_events_webhooks makes them). */
export const webhookEventTypes = [
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.awaiting_input',
  'approval.requested',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** The input of a webhook delivery workflow (one per delivery, and one per re-send). */
export interface WebhookDeliveryInput {
  deliveryId: string;
  /** 0 for the delivery itself, 1… for re-sends: attempts are logged under it. */
  resend: number;
  retry: { initialMs: number; maxMs: number; windowMs: number; timeoutMs: number };
}

/** The workflow id of a delivery (its `webhook-id`) or of one of its re-sends. */
export function webhookWorkflowId(deliveryId: string, resend: number): string {
  return resend === 0 ? `webhook-${deliveryId}` : `webhook-${deliveryId}-resend-${resend}`;
}
