import type { Caller } from '../../auth/caller.ts';
import { findDelivery, listDeliveries, listWebhooks, startResend } from '../../db/webhooks.ts';
import { notFound } from '../../shared/domain-error.ts';
import type { ApiDeps } from '../deps.ts';
import { startDeliveryWorkflow } from '../loops/webhook-dispatch.ts';
import { requireOrgAdmin } from './org-admin-access.ts';

/*
 * Outbound webhooks as their org's owners and admins see them: subscriptions are configured with
 * `admin apply`; these read them and their deliveries, and send a delivery again.
 */

const iso = (d: Date | null) => d?.toISOString() ?? null;

const requireWebhookAdmin = (caller: Caller) => requireOrgAdmin(caller, 'use the webhook endpoints');

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

async function loadDelivery(db: ApiDeps['db'], caller: Caller, deliveryId: string) {
  const delivery = await findDelivery(db, caller.orgId, deliveryId);
  if (!delivery) throw notFound(`Webhook delivery ${deliveryId} not found`);
  return delivery;
}

export async function webhookList(db: ApiDeps['db'], caller: Caller) {
  requireWebhookAdmin(caller);
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
}

export async function deliveryList(
  db: ApiDeps['db'],
  caller: Caller,
  filter: { status?: string; subscriptionId?: string; limit: number },
) {
  requireWebhookAdmin(caller);
  const rows = await listDeliveries(db, caller.orgId, filter);
  return { deliveries: rows.map(toDelivery), count: rows.length };
}

export async function deliveryDetail(db: ApiDeps['db'], caller: Caller, deliveryId: string) {
  requireWebhookAdmin(caller);
  const delivery = await loadDelivery(db, caller, deliveryId);
  const attempt_log = delivery.attemptLog.map((a) => ({
    resend: a.resend,
    attempt: a.attempt,
    status_code: a.statusCode,
    error: a.error,
    duration_ms: a.durationMs,
    created_at: a.createdAt.toISOString(),
  }));
  return { ...toDelivery(delivery), attempt_log };
}

/** Sends a delivery again with the same payload and `webhook-id`, its attempts logged under the next re-send number. */
export async function resendDelivery(
  deps: Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>,
  caller: Caller,
  deliveryId: string,
) {
  requireWebhookAdmin(caller);
  const delivery = await loadDelivery(deps.db, caller, deliveryId);
  const resend = await startResend(deps.db, delivery.id);
  await startDeliveryWorkflow(deps, delivery.id, resend, delivery.orgId);
  return { delivery_id: delivery.id, resend, status: 'pending' as const };
}
