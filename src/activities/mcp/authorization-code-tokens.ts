import { createHash } from 'node:crypto';
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { REFRESH_RETRY_MS, tokenSchedule } from './token-schedule.ts';
import type { StoredGrant } from '../../mcp-oauth/stored-grant.ts';
import type { UrlFetch } from '../../outbound/guarded-fetch.ts';
import type { AuthorizationCodeOAuth } from '../../shared/tool-server-types.ts';

/** Raised when the grant is gone (revoked, expired, never made): only an admin's Connect can make a new one. */
export class ConnectNeeded extends Error {}

/** Writes a grant back to its org secret (when the authorization server rotated the refresh token). */
export type GrantWriter = (orgId: string, secretName: string, grant: StoredGrant) => Promise<void>;

/** One org's grant for one server, as this worker holds it: in memory only, never in history, logs or answers. */
interface Entry {
  grant: StoredGrant;
  /** The refresh token (or, without one, the access token) of the stored grant this entry follows. */
  basis: string;
  /** Bases this worker rotated away from: a read of the secret from before its write-back is not followed. */
  retired: Set<string>;
  expiresAt: number;
  refreshAt: number;
  refreshing?: Promise<void>;
  retryAt?: number;
}

const basisOf = (grant: StoredGrant) => grant.tokens.refresh_token ?? grant.tokens.access_token;

/**
 * Access tokens of authorization-code servers (Connect) for the worker: the stored grant's access
 * token while it is valid, then a new one from its refresh token shortly before it expires (the
 * SDK's `auth()` does the refresh, at the authorization server Connect discovered: it is never
 * discovered again, so the refresh token cannot be sent elsewhere). A rotated refresh token is
 * written back to the org secret at once. Every request goes through `fetch` (the outbound guard).
 */
export class AuthorizationCodeTokens {
  private readonly entries = new Map<string, Entry>();

  /** `now` is for tests that move time forward. */
  constructor(
    private readonly fetch: UrlFetch,
    private readonly writeGrant: GrantWriter,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The SDK's provider for `authProvider` of a transport to `serverUrl`, over `grant` as its org
   * secret holds it now and the configured client's secret (opened by the caller).
   */
  provider(
    orgId: string,
    serverUrl: string,
    oauth: AuthorizationCodeOAuth,
    grant: StoredGrant,
    clientSecret: string | undefined,
  ): OAuthClientProvider {
    if (grant.serverUrl !== serverUrl)
      throw new ConnectNeeded(`the grant was made for ${grant.serverUrl}, not ${serverUrl}: Connect again`);
    const key = createHash('sha256')
      .update(JSON.stringify([orgId, serverUrl, oauth.refreshToken.secret, oauth.clientId, oauth.issuer, clientSecret]))
      .digest('base64url');
    let entry = this.entries.get(key);
    // A new Connect, or another worker's refresh, changed the secret: follow it.
    const basis = basisOf(grant);
    if (!entry || (entry.basis !== basis && !entry.retired.has(basis) && !entry.refreshing)) {
      entry = { grant, basis, retired: new Set(), expiresAt: 0, refreshAt: 0 };
      setLifetime(entry, grant.tokens, grant.obtainedAt);
      this.entries.set(key, entry);
    }
    const persist = (next: StoredGrant) => this.writeGrant(orgId, oauth.refreshToken.secret, next);
    return new AuthorizationCodeProvider(entry, serverUrl, oauth, clientSecret, this.fetch, this.now, persist, false);
  }
}

function setLifetime(entry: Entry, tokens: OAuthTokens, issuedAt: number) {
  Object.assign(entry, tokenSchedule(tokens, issuedAt));
}

/**
 * The SDK's OAuthClientProvider over a worker's entry. `raw` is the one handed to `auth()` while
 * refreshing: its tokens() gives the stored refresh token as it is, instead of refreshing again.
 */
class AuthorizationCodeProvider implements OAuthClientProvider {
  constructor(
    private readonly entry: Entry,
    private readonly serverUrl: string,
    private readonly oauth: AuthorizationCodeOAuth,
    private readonly clientSecret: string | undefined,
    private readonly fetch: UrlFetch,
    private readonly now: () => number,
    private readonly persist: (grant: StoredGrant) => Promise<void>,
    private readonly raw: boolean,
  ) {}

  get redirectUrl(): string {
    return this.entry.grant.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Agent Run Service',
      redirect_uris: [this.entry.grant.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      ...(this.oauth.scope ? { scope: this.oauth.scope } : {}),
    };
  }

  /** The configured client, bound to the authorization server Connect used; else the one Connect registered. */
  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId } = this.oauth;
    if (!clientId) return this.entry.grant.client;
    return {
      client_id: clientId,
      ...(this.clientSecret ? { client_secret: this.clientSecret } : {}),
      issuer: this.oauth.issuer ?? this.entry.grant.discovery.authorizationServerUrl,
    };
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const { entry } = this;
    if (this.raw) return entry.grant.tokens;
    const now = this.now();
    const fresh = now < entry.refreshAt;
    const waiting = entry.retryAt !== undefined && now < entry.retryAt && now < entry.expiresAt;
    if (!fresh && !waiting && entry.grant.tokens.refresh_token) {
      const raw = new AuthorizationCodeProvider(
        entry,
        this.serverUrl,
        this.oauth,
        this.clientSecret,
        this.fetch,
        this.now,
        this.persist,
        true,
      );
      try {
        await (entry.refreshing ??= auth(raw, { serverUrl: this.serverUrl, fetchFn: this.fetch }).then(
          () => undefined,
        )).finally(() => (entry.refreshing = undefined));
        entry.retryAt = undefined;
      } catch (err) {
        entry.retryAt = this.now() + REFRESH_RETRY_MS;
        if (err instanceof ConnectNeeded || this.now() >= entry.expiresAt) throw err;
      }
    }
    return this.now() < entry.expiresAt ? entry.grant.tokens : undefined;
  }

  /** A refresh's answer: a refresh token it leaves out stays valid (RFC 6749 §6); a new one is written back at once. */
  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const { entry } = this;
    const previous = entry.grant.tokens.refresh_token;
    const merged = { ...tokens, ...(tokens.refresh_token || !previous ? {} : { refresh_token: previous }) };
    const now = this.now();
    entry.grant = { ...entry.grant, tokens: merged, obtainedAt: now };
    setLifetime(entry, merged, now);
    if (merged.refresh_token !== previous) {
      await this.persist(entry.grant);
      entry.retired.add(entry.basis);
      entry.basis = basisOf(entry.grant);
    }
  }

  discoveryState(): OAuthDiscoveryState {
    return this.entry.grant.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // The SDK fills in metadata it had to fetch again; the authorization server itself stays the one Connect used.
    if (state.authorizationServerUrl === this.entry.grant.discovery.authorizationServerUrl)
      this.entry.grant = { ...this.entry.grant, discovery: state };
  }

  /** A refresh token the authorization server refused (invalid_grant) is dropped: Connect must make a new grant. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') {
      const { refresh_token: _dropped, ...rest } = this.entry.grant.tokens;
      this.entry.grant = { ...this.entry.grant, tokens: rest };
      this.entry.expiresAt = 0;
      this.entry.refreshAt = 0;
    }
  }

  redirectToAuthorization(): void {
    throw new ConnectNeeded('the authorization has expired or was revoked: Connect the server again');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new ConnectNeeded('the authorization has expired or was revoked: Connect the server again');
  }
}
