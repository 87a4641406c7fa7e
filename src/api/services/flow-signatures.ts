import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Verifying inbound flow requests, each the way its sender signs: Standard Webhooks (webhook and
 * email flows; the library checks the timestamp is within 5 minutes), GitHub's
 * `X-Hub-Signature-256`, and Slack's `v0` signature with its own 5-minute timestamp window.
 * Each returns false for a bad or stale signature.
 */

const SLACK_TOLERANCE_SECONDS = 300;

export function verifyStandardWebhook(
  secret: string,
  rawBody: string,
  headers: Record<string, string | undefined>,
): boolean {
  try {
    new Webhook(secret).verify(rawBody, {
      'webhook-id': headers['webhook-id'] ?? '',
      'webhook-timestamp': headers['webhook-timestamp'] ?? '',
      'webhook-signature': headers['webhook-signature'] ?? '',
    });
    return true;
  } catch {
    return false;
  }
}

export function verifyGithub(secret: string, rawBody: string, signature: string | undefined): boolean {
  if (!signature?.startsWith('sha256=')) return false;
  return sameText(signature, `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
}

export function verifySlack(
  secret: string,
  rawBody: string,
  timestamp: string | undefined,
  signature: string | undefined,
  now = Date.now(),
): boolean {
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > SLACK_TOLERANCE_SECONDS) return false;
  return sameText(signature, `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
