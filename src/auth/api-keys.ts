import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every live key starts with this typed prefix, so leaked keys are easy to recognise and scan for. */
export const API_KEY_PREFIX = 'ars_live_';

export interface NewApiKey {
  /** The full key: shown once, never stored. */
  key: string;
  /** Non-secret start of the key, stored for display ("ars_live_ab12…"). */
  prefix: string;
  /** SHA-256 of the full key, hex; the only stored form. */
  hash: string;
}

export function generateApiKey(): NewApiKey {
  const key = API_KEY_PREFIX + randomBytes(24).toString('base64url');
  return { key, prefix: key.slice(0, API_KEY_PREFIX.length + 6), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && value.length > API_KEY_PREFIX.length + 16;
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Publishable widget keys: meant to sit in a customer's page, so they only open the widget gateway. */
export const WIDGET_KEY_PREFIX = 'ars_pub_';

/** A new widget key; stored like an API key (prefix + SHA-256 hash). */
export function generateWidgetKey(): NewApiKey {
  const key = WIDGET_KEY_PREFIX + randomBytes(24).toString('base64url');
  return { key, prefix: key.slice(0, WIDGET_KEY_PREFIX.length + 6), hash: hashApiKey(key) };
}
