import { z } from 'zod';
import { findDelivery, listDeliveries, listWebhooks, startResend } from '../../db/webhooks.ts';
import { notFound } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  webhookDeliveryDetailSchema,
  webhookDeliveryListQuerySchema,
  webhookDeliveryListSchema,
  webhookListSchema,
  webhookResendSchema,
} from '../schemas/webhooks.ts';
import { startDeliveryWorkflow } from '../loops/webhook-dispatch.ts';
import { requireOrgAdmin } from '../services/org-admin-access.ts';

const ADMINS_ONLY = 'Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403).';

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toDelivery(
  d: NonNullable<Awaited<ReturnType<typeof findDelivery>>> | Awaited<ReturnType<typeof listDeliveries>>[number],
) {
  return {
    id: d.id,
    subscription_id: d.subscriptionId,
    event_type: d.eventType as never,
    run_id: d.runId,
    status: d.status as never,
    attempts: d.attempts,
    resends: d.resends,
    last_error: d.lastError,
    payload: d.payload as Record<string, unknown>,
    created_at: d.createdAt.toISOString(),
    delivered_at: iso(d.deliveredAt),
  };
}

const deliveryParams = z.object({ delivery_id: z.string().min(1).max(100) });

/** Outbound webhooks: subscriptions are configured with `admin apply`; these read them and their deliveries. */
export const webhookRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/webhooks',
    operationId: 'listWebhooks',
    summary: 'Outbound webhook subscriptions of the organization',
    description: `${ADMINS_ONLY} Subscriptions are created and changed with \`admin apply\` (\`webhooks\` of an org); secrets are never shown here.`,
    tags: ['webhooks'],
    auth: 'user',
    rateLimit: 'approvals',
    responses: { 200: { description: 'Subscriptions', schema: webhookListSchema }, ...errorResponses },
    async handler({ caller }, { db }) {
      requireOrgAdmin(caller, 'use the webhook endpoints');
      const rows = await listWebhooks(db, caller.orgId);
      const webhooks = rows.map((w) => ({
        id: w.id,
        name: w.name,
        url: w.url,
        events: w.events as never,
        agent_id: w.agentId,
        enabled: w.disabledAt === null,
        created_at: w.createdAt.toISOString(),
      }));
      return { webhooks, count: webhooks.length };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Webhook deliveries of the organization, newest first',
    description: `${ADMINS_ONLY} Filter by \`status\` (pending, delivered, failed) and \`subscription_id\`; \`limit\` 1–200, default 50.`,
    tags: ['webhooks'],
    auth: 'user',
    rateLimit: 'approvals',
    query: webhookDeliveryListQuerySchema,
    responses: { 200: { description: 'Deliveries', schema: webhookDeliveryListSchema }, ...errorResponses },
    async handler({ caller, query }, { db }) {
      requireOrgAdmin(caller, 'use the webhook endpoints');
      const rows = await listDeliveries(db, caller.orgId, {
        status: query.status,
        subscriptionId: query.subscription_id,
        limit: query.limit,
      });
      return { deliveries: rows.map(toDelivery), count: rows.length };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/deliveries/{delivery_id}',
    operationId: 'getWebhookDelivery',
    summary: 'One webhook delivery with every attempt',
    description: `${ADMINS_ONLY} A delivery of another organization is 404.`,
    tags: ['webhooks'],
    auth: 'user',
    rateLimit: 'approvals',
    params: deliveryParams,
    responses: {
      200: { description: 'The delivery and its attempts', schema: webhookDeliveryDetailSchema },
      ...errorResponses,
    },
    async handler({ caller, params }, { db }) {
      requireOrgAdmin(caller, 'use the webhook endpoints');
      const delivery = await findDelivery(db, caller.orgId, params.delivery_id);
      if (!delivery) throw notFound(`Webhook delivery ${params.delivery_id} not found`);
      const attempt_log = delivery.attemptLog.map((a) => ({
        resend: a.resend,
        attempt: a.attempt,
        status_code: a.statusCode,
        error: a.error,
        duration_ms: a.durationMs,
        created_at: a.createdAt.toISOString(),
      }));
      return { ...toDelivery(delivery), attempt_log };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/deliveries/{delivery_id}/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivery again',
    description:
      `${ADMINS_ONLY} Sends the same payload again with the same \`webhook-id\` (a receiver that kept it drops it), ` +
      'retried with the same backoff as the first delivery; its attempts are logged under the re-send number. 202 at once.',
    tags: ['webhooks'],
    auth: 'user',
    rateLimit: 'approvals',
    params: deliveryParams,
    responses: { 202: { description: 'Re-send started', schema: webhookResendSchema }, ...errorResponses },
    status: 202,
    async handler({ caller, params }, deps) {
      requireOrgAdmin(caller, 'use the webhook endpoints');
      const delivery = await findDelivery(deps.db, caller.orgId, params.delivery_id);
      if (!delivery) throw notFound(`Webhook delivery ${params.delivery_id} not found`);
      const resend = await startResend(deps.db, delivery.id);
      await startDeliveryWorkflow(deps, delivery.id, resend);
      return { delivery_id: delivery.id, resend, status: 'pending' as const };
    },
  }),
];
