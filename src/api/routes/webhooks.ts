import { z } from 'zod';
import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  webhookDeliveryDetailSchema,
  webhookDeliveryListQuerySchema,
  webhookDeliveryListSchema,
  webhookListSchema,
  webhookResendSchema,
} from '../schemas/webhooks.ts';
import { deliveryDetail, deliveryList, resendDelivery, webhookList } from '../services/webhooks.ts';

const ADMINS_ONLY = 'Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403).';

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
      return webhookList(db, caller);
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
      return deliveryList(db, caller, {
        status: query.status,
        subscriptionId: query.subscription_id,
        limit: query.limit,
      });
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
      return deliveryDetail(db, caller, params.delivery_id);
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
      return resendDelivery(deps, caller, params.delivery_id);
    },
  }),
];
