import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** An access token is replaced this long before it expires (a quarter of its lifetime when that is shorter). */
const REFRESH_MARGIN_MS = 60_000;
/** A refresh that failed is tried again this much later, while the old token is still valid. */
export const REFRESH_RETRY_MS = 5_000;

/** When tokens issued at `issuedAt` expire, and when to replace them. */
export function tokenSchedule(tokens: OAuthTokens, issuedAt: number): { expiresAt: number; refreshAt: number } {
  const lifetime = tokens.expires_in !== undefined ? tokens.expires_in * 1000 : Infinity;
  return { expiresAt: issuedAt + lifetime, refreshAt: issuedAt + lifetime - Math.min(REFRESH_MARGIN_MS, lifetime / 4) };
}
