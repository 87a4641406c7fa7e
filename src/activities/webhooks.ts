import { ApplicationFailure, Context } from '@temporalio/activity';
import { Webhook } from 'standardwebhooks';
import { deliveryToSend, markDeliveryFailed, recordAttempt } from '../db/webhooks.ts';
import type { WebhookDeliveryInput } from '../shared/webhook-delivery-types.ts';
import { postOutbound, RefusedTargetError } from '../outbound/post.ts';
import type { ActivityDeps } from './deps.ts';

const USER_AGENT = 'agent-run-service-webhooks/1';
const ERROR_TEXT_LIMIT = 500;

/**
 * One attempt of an outbound webhook, signed per the Standard Webhooks specification
 * (`webhook-id` = the delivery id, `webhook-timestamp`, `webhook-signature` v1 HMAC-SHA256 of
 * "id.timestamp.body" with the subscription's `whsec_` secret). Every attempt is logged; a
 * non-2xx answer or a network error throws, and Temporal retries with backoff. Unless
 * OUTBOUND_PRIVATE_TARGETS=allow, only public addresses are called (subscriptions are the orgs').
 */
export function createWebhookActivities({ db, logger, config }: ActivityDeps) {
  return {
    async sendWebhook({ deliveryId, resend, retry }: WebhookDeliveryInput): Promise<void> {
      const delivery = await deliveryToSend(db, deliveryId);
      if (!delivery) return; // its subscription (or org) was deleted: nothing left to send
      const attempt = Context.current().info.attempt;
      const body = JSON.stringify(delivery.payload);
      const timestamp = new Date();
      const signature = new Webhook(delivery.subscription.secret).sign(deliveryId, timestamp, body);
      const started = performance.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      let refused = false;
      try {
        ({ status: statusCode } = await postOutbound(delivery.subscription.url, {
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': USER_AGENT,
            'webhook-id': deliveryId,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
          body,
          timeoutMs: retry.timeoutMs,
          signal: Context.current().cancellationSignal,
          allowPrivate: config.outbound.privateTargets === 'allow',
        }));
        if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
      } catch (err) {
        error = (err as Error).message.slice(0, ERROR_TEXT_LIMIT);
        refused = err instanceof RefusedTargetError;
      }
      const durationMs = Math.round(performance.now() - started);
      await recordAttempt(db, { deliveryId, resend, attempt, statusCode, error, durationMs }, error === null);
      // The address policy will refuse every later attempt too: fail the delivery now, not after the retry window.
      if (refused) throw ApplicationFailure.nonRetryable(`webhook ${deliveryId}: ${error}`, 'WebhookTargetRefused');
      if (error !== null) {
        logger.info(
          { deliveryId, resend, attempt, statusCode, error },
          'webhook attempt failed; retrying with backoff',
        );
        throw ApplicationFailure.retryable(
          `webhook ${deliveryId} attempt ${attempt}: ${error}`,
          'WebhookAttemptFailed',
        );
      }
    },

    async failWebhookDelivery({ deliveryId, error }: { deliveryId: string; error: string }): Promise<void> {
      await markDeliveryFailed(db, deliveryId, error.slice(0, ERROR_TEXT_LIMIT));
      logger.warn({ deliveryId, error }, 'webhook delivery gave up after its retry window');
    },
  };
}
