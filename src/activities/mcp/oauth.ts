import { createHash } from 'node:crypto';
import {
  auth,
  type AddClientAuthentication,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { REFRESH_RETRY_MS, tokenSchedule } from './token-schedule.ts';
import type { UrlFetch } from '../../outbound/guarded-fetch.ts';
import type { ClientCredentialsOAuth } from '../../shared/tool-server-types.ts';

/** What a worker keeps for one org's client of one server: in memory only, never in history, logs or answers. */
interface Entry {
  tokens?: OAuthTokens;
  refreshAt: number;
  expiresAt: number;
  discovery?: OAuthDiscoveryState;
  refreshing?: Promise<void>;
  /** After a failed refresh, the valid old token is used without asking again until then. */
  retryAt?: number;
}

/**
 * OAuth client credentials for MCP servers (the MCP authorization spec): the SDK's `auth()` does
 * the protocol (protected resource metadata from the server's 401 or its well-known URL, then
 * authorization server metadata, RFC 8414 or OIDC, then the token request, client_secret_basic or
 * _post as the server supports, or private_key_jwt with the SDK's signer); this keeps each org's token per server for the worker, in memory,
 * and replaces it before it expires. Every request goes through `fetch` (the outbound guard).
 */
export class ClientCredentialsTokens {
  private readonly entries = new Map<string, Entry>();

  /** `now` is for tests that move time forward. */
  constructor(
    private readonly fetch: UrlFetch,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The SDK's provider for `authProvider` of a transport to `serverUrl`, with `clientSecret` opened by
   * the caller: the client secret, or with `oauth.privateKey` the private key (PEM) of private_key_jwt.
   */
  provider(orgId: string, serverUrl: string, oauth: ClientCredentialsOAuth, clientSecret: string): OAuthClientProvider {
    // The secret is part of the key (hashed), so a rotated secret or another client id never reuses a token.
    const key = createHash('sha256')
      .update(JSON.stringify([orgId, serverUrl, oauth.clientId, oauth.scope, oauth.issuer, clientSecret]))
      .digest('base64url');
    this.forgetExpired();
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = { refreshAt: 0, expiresAt: 0 }));
    return new ClientCredentialsProvider(entry, serverUrl, oauth, clientSecret, this.fetch, this.now);
  }

  private forgetExpired() {
    const now = this.now();
    for (const [key, entry] of this.entries)
      if (entry.tokens && entry.expiresAt <= now && !entry.refreshing) this.entries.delete(key);
  }
}

/** The SDK's OAuthClientProvider for the client-credentials grant, over a worker's cache entry. */
class ClientCredentialsProvider implements OAuthClientProvider {
  constructor(
    private readonly entry: Entry,
    private readonly serverUrl: string,
    private readonly oauth: ClientCredentialsOAuth,
    private readonly clientSecret: string,
    private readonly fetch: UrlFetch,
    private readonly now: () => number,
  ) {
    const key = oauth.privateKey;
    // private_key_jwt: the SDK signs a short-lived assertion (iss = sub = client_id, aud = the authorization server).
    if (key)
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: oauth.clientId,
        subject: oauth.clientId,
        privateKey: clientSecret,
        alg: key.algorithm,
      });
  }

  readonly addClientAuthentication?: AddClientAuthentication;

  get redirectUrl(): undefined {
    return undefined; // non-interactive: auth() asks the token endpoint directly
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'agent-run-service',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: this.oauth.privateKey ? 'private_key_jwt' : 'client_secret_basic',
      ...(this.oauth.scope ? { scope: this.oauth.scope } : {}),
    };
  }

  /** Pre-registered: with `issuer`, the SDK presents it to that authorization server only. */
  clientInformation(): OAuthClientInformationMixed {
    return {
      client_id: this.oauth.clientId,
      ...(this.oauth.privateKey ? {} : { client_secret: this.clientSecret }),
      ...(this.oauth.issuer ? { issuer: this.oauth.issuer } : {}),
    };
  }

  /**
   * The token to send: replaced shortly before it expires (the discovery is known by then, so this
   * goes straight to the token endpoint); the old one is used while it is valid if that fails.
   * Without one, the request goes without, and the server's 401 starts the SDK's discovery.
   */
  async tokens(): Promise<OAuthTokens | undefined> {
    const { entry } = this;
    const now = this.now();
    if (entry.tokens && (now < entry.refreshAt || (entry.retryAt && now < entry.retryAt && now < entry.expiresAt)))
      return entry.tokens;
    if (entry.tokens && entry.discovery) {
      try {
        await (entry.refreshing ??= auth(this, { serverUrl: this.serverUrl, fetchFn: this.fetch }).then(
          () => undefined,
        )).finally(() => (entry.refreshing = undefined));
        entry.retryAt = undefined;
      } catch (err) {
        entry.retryAt = this.now() + REFRESH_RETRY_MS;
        if (this.now() >= entry.expiresAt) throw err;
      }
    }
    return entry.tokens && this.now() < entry.expiresAt ? entry.tokens : undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.entry.tokens = tokens;
    Object.assign(this.entry, tokenSchedule(tokens, this.now()));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.entry.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.entry.discovery = state;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens')
      Object.assign(this.entry, { tokens: undefined, refreshAt: 0, expiresAt: 0 });
    if (scope === 'all' || scope === 'discovery') this.entry.discovery = undefined;
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  redirectToAuthorization(): void {
    throw new Error('the client-credentials grant has no authorization redirect');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error('the client-credentials grant has no code verifier');
  }
}

/**
 * fetch for a transport with OAuth: the settings' headers go to the server's own origin only. The
 * SDK sends a transport's `requestInit` headers on its discovery and token requests too, which
 * may go to another host (the authorization server).
 */
export function withServerHeaders(fetch: UrlFetch, serverUrl: URL, headers: Record<string, string>): UrlFetch {
  if (!Object.keys(headers).length) return fetch;
  return (url, init) => {
    if (new URL(url).origin !== serverUrl.origin) return fetch(url, init);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(url, { ...init, headers: merged });
  };
}
