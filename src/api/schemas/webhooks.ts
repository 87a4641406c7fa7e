import { z } from 'zod';
import { pageLimit } from './common.ts';
import { webhookEventTypes } from '../../shared/webhook-delivery-types.ts';

export const webhookSubscriptionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.enum(webhookEventTypes)),
    agent_id: z.string().nullable().describe('Only runs of this agent; null: every agent of the org'),
    enabled: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookSubscription' });

export const webhookListSchema = z
  .object({ webhooks: z.array(webhookSubscriptionSchema), count: z.number().int() })
  .meta({ id: 'WebhookSubscriptionList' });

const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('The `webhook-id` header of every attempt and re-send of this delivery'),
    subscription_id: z.string(),
    event_type: z.enum(webhookEventTypes),
    run_id: z.string().nullable(),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int().describe('HTTP attempts made so far, re-sends included'),
    resends: z.number().int(),
    last_error: z.string().nullable(),
    payload: z
      .record(z.string(), z.unknown())
      .describe('The JSON body sent: `{type, timestamp, data: {org_id, agent_id, task_id, run_id, event}}`'),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryListQuerySchema = z.object({
  status: z.enum(deliveryStatuses).optional(),
  subscription_id: z.string().min(1).max(100).optional(),
  limit: pageLimit(200, 50),
});

export const webhookDeliveryListSchema = z
  .object({ deliveries: z.array(webhookDeliverySchema), count: z.number().int() })
  .meta({ id: 'WebhookDeliveryList' });

export const webhookAttemptSchema = z.object({
  resend: z.number().int().describe('0: the delivery itself; 1…: its re-sends'),
  attempt: z.number().int(),
  status_code: z.number().int().nullable().describe('null when no HTTP answer came (connection refused, timeout)'),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: z.string(),
});

export const webhookDeliveryDetailSchema = webhookDeliverySchema
  .extend({ attempt_log: z.array(webhookAttemptSchema) })
  .meta({ id: 'WebhookDeliveryDetail' });

export const webhookResendSchema = z
  .object({ delivery_id: z.string(), resend: z.number().int(), status: z.literal('pending') })
  .meta({ id: 'WebhookResend' });
