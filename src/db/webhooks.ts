import type { WebhookEventType } from '../shared/webhook-delivery-types.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';

/**
 * Outbound webhooks: subscriptions (written by `admin apply`), deliveries (made by the trigger
 * run_events_webhooks in the event's own transaction) and the log of their attempts.
 */

export interface WebhookSubscriptionFields {
  name: string;
  url: string;
  events: WebhookEventType[];
  agentId: string | null;
  disabled: boolean;
}

export function findWebhookNamed(db: DbOrTx, orgId: string, name: string) {
  return db.webhookSubscription.findUnique({ where: { orgId_name: { orgId, name } } });
}

export function insertWebhook(
  db: DbOrTx,
  row: { id: string; orgId: string; secret: string } & WebhookSubscriptionFields,
) {
  const { disabled, ...fields } = row;
  return db.webhookSubscription.create({ data: { ...fields, disabledAt: disabled ? new Date() : null } });
}

export function updateWebhook(
  db: DbOrTx,
  id: string,
  change: Partial<WebhookSubscriptionFields> & { secret?: string },
) {
  const { disabled, ...fields } = change;
  return db.webhookSubscription.update({
    where: { id },
    data: { ...fields, ...(disabled === undefined ? {} : { disabledAt: disabled ? new Date() : null }) },
  });
}

/** The org's subscriptions, by name; secrets are not read. */
export function listWebhooks(db: Db, orgId: string) {
  return db.webhookSubscription.findMany({
    where: { orgId },
    orderBy: { name: 'asc' },
    select: { id: true, name: true, url: true, events: true, agentId: true, createdAt: true, disabledAt: true },
  });
}

/** Deliveries whose workflow has not been started yet, oldest first. */
export async function listUndispatchedDeliveries(db: Db, limit: number): Promise<{ id: string; orgId: string }[]> {
  const rows = await sqlOfPool(db).query<{ id: string; org_id: string }>(
    'SELECT id, org_id FROM webhook_deliveries WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1',
    [limit],
  );
  return rows.map((r) => ({ id: r.id, orgId: r.org_id }));
}

export async function markDispatched(db: Db, id: string): Promise<void> {
  await db.webhookDelivery.updateMany({ where: { id, dispatchedAt: null }, data: { dispatchedAt: new Date() } });
}

/** What an attempt sends: the subscription's URL and secret and the delivery's payload. */
export async function deliveryToSend(db: Db, id: string) {
  return db.webhookDelivery.findUnique({
    where: { id },
    select: { id: true, payload: true, status: true, subscription: { select: { url: true, secret: true } } },
  });
}

export interface AttemptRecord {
  deliveryId: string;
  resend: number;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Logs one attempt (a retried activity that logs the same attempt again changes nothing) and
 * moves the delivery: delivered on a 2xx, otherwise its attempt count and last error.
 */
export async function recordAttempt(db: Db, attempt: AttemptRecord, delivered: boolean): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.webhookAttempt.upsert({
      where: {
        deliveryId_resend_attempt: { deliveryId: attempt.deliveryId, resend: attempt.resend, attempt: attempt.attempt },
      },
      create: attempt,
      update: {},
    });
    await tx.webhookDelivery.update({
      where: { id: attempt.deliveryId },
      data: {
        attempts: { increment: 1 },
        lastError: delivered ? null : attempt.error,
        ...(delivered ? { status: 'delivered', deliveredAt: new Date() } : {}),
      },
    });
  });
}

/** A delivery whose retry window ran out. */
export async function markDeliveryFailed(db: Db, id: string, error: string): Promise<void> {
  await db.webhookDelivery.updateMany({
    where: { id, status: { not: 'delivered' } },
    data: { status: 'failed', lastError: error },
  });
}

/** The org's deliveries, newest first, optionally of one status or subscription. */
export function listDeliveries(
  db: Db,
  orgId: string,
  filter: { status?: string; subscriptionId?: string; limit: number },
) {
  return db.webhookDelivery.findMany({
    where: {
      orgId,
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.subscriptionId ? { subscriptionId: filter.subscriptionId } : {}),
    },
    orderBy: { createdAt: 'desc' },
    take: filter.limit,
  });
}

/** One delivery of the org with its attempts in order (null when it is not the org's). */
export function findDelivery(db: Db, orgId: string, id: string) {
  return db.webhookDelivery.findFirst({
    where: { id, orgId },
    include: { attemptLog: { orderBy: [{ resend: 'asc' }, { attempt: 'asc' }] } },
  });
}

/** Counts a re-send and returns its number (1, 2, …); the delivery is pending again until it succeeds. */
export async function startResend(db: Db, id: string): Promise<number> {
  const row = await db.webhookDelivery.update({
    where: { id },
    data: { resends: { increment: 1 }, status: 'pending' },
    select: { resends: true },
  });
  return row.resends;
}
