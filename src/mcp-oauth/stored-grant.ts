import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * What Connect writes to the org secret an authorization-code server's `refresh_token` names, as
 * JSON: the tokens (stamped by the SDK with the authorization server that issued them), where they
 * came from and what refreshing them needs. It is sealed like every org secret and read only by the
 * worker; the worker writes it back when the authorization server rotates the refresh token.
 */
export interface StoredGrant {
  v: 1;
  /** The MCP server the tokens are for. */
  serverUrl: string;
  /** The redirect URI the grant was made with (ours, from PUBLIC_BASE_URL). */
  redirectUrl: string;
  /** The authorization server and metadata found when connecting: never discovered again, so it stays pinned. */
  discovery: OAuthDiscoveryState;
  /** A client that registered itself (dynamic client registration) when connecting; absent for a configured client_id. */
  client?: OAuthClientInformationMixed;
  tokens: OAuthTokens;
  /** When `tokens` were issued (ms since the epoch): their `expires_in` counts from then. */
  obtainedAt: number;
}

export class StoredGrantUnreadable extends Error {}

export function parseStoredGrant(value: string): StoredGrant {
  let grant: Partial<StoredGrant>;
  try {
    grant = JSON.parse(value) as Partial<StoredGrant>;
  } catch {
    throw new StoredGrantUnreadable('is not what Connect stores (set it with Connect, not by hand)');
  }
  if (
    grant?.v !== 1 ||
    typeof grant.serverUrl !== 'string' ||
    typeof grant.redirectUrl !== 'string' ||
    typeof grant.discovery?.authorizationServerUrl !== 'string' ||
    typeof grant.tokens?.access_token !== 'string' ||
    typeof grant.obtainedAt !== 'number'
  )
    throw new StoredGrantUnreadable('is not what Connect stores (set it with Connect, not by hand)');
  return grant as StoredGrant;
}
