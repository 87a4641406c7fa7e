import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { connectToolServer } from '../activities/mcp/connect.ts';
import type { UrlFetch } from '../outbound/guarded-fetch.ts';
import type { StoredGrant } from './stored-grant.ts';

/** The client of an authorization-code server's settings, its secret (if any) opened by the caller. */
export interface ConnectClient {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** The only authorization server this client may use; the server's advertised one when absent. */
  issuer?: string;
}

/** Kept server-side between the start of Connect and its callback (sealed, single use, short-lived). */
export interface PendingAuthorization {
  serverUrl: string;
  redirectUrl: string;
  codeVerifier: string;
  discovery: OAuthDiscoveryState;
  /** The client registered while starting (dynamic client registration); absent for a configured client. */
  registered?: OAuthClientInformationMixed;
}

/** Raised when Connect cannot go on: a one-line reason for the admin, never a secret. */
export class ConnectRefused extends Error {}

/**
 * The SDK's OAuthClientProvider for Connect: the SDK does the protocol (protected resource metadata
 * from the server's 401 or its well-known URL, authorization server metadata by RFC 8414 or OIDC,
 * dynamic client registration when no client is configured, PKCE S256, the `resource` parameter,
 * the code exchange); this keeps what it hands over, in memory, for the caller to store.
 */
class ConnectProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  registered?: OAuthClientInformationMixed;
  issued?: OAuthTokens;

  constructor(
    readonly redirectUrl: string,
    private readonly client: ConnectClient,
    private readonly stateValue: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Agent Run Service',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(this.client.scope ? { scope: this.client.scope } : {}),
    };
  }

  state(): string {
    return this.stateValue;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret, issuer } = this.client;
    if (!clientId) return this.registered;
    return {
      client_id: clientId,
      ...(clientSecret ? { client_secret: clientSecret } : {}),
      ...(issuer ? { issuer } : {}),
    };
  }

  /** A registration's answer (kept for the callback and the worker); for a configured client, only the SDK's binding stamp: ignored. */
  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (!this.client.clientId) this.registered = info;
  }

  /** The authorization server is pinned: a configured `issuer` must be the one discovered. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const { issuer } = this.client;
    if (issuer && !sameIssuer(issuer, state.authorizationServerUrl))
      throw new ConnectRefused(
        `the server names authorization server ${state.authorizationServerUrl}, not the configured issuer ${issuer}`,
      );
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  tokens(): undefined {
    return undefined; // Connect always asks for a new grant
  }

  saveTokens(tokens: OAuthTokens): void {
    this.issued = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new ConnectRefused('no authorization was started');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.registered = undefined;
  }
}

function sameIssuer(a: string, b: string): boolean {
  const norm = (u: string) => (URL.canParse(u) ? new URL(u).href : u).replace(/\/$/, '');
  return norm(a) === norm(b);
}

export interface BeginOptions {
  serverUrl: string;
  client: ConnectClient;
  /** Ours, from PUBLIC_BASE_URL: never from a request. */
  redirectUrl: string;
  /** Random, unguessable: it names the pending authorization when the browser comes back. */
  state: string;
  /** The server's own headers (secrets opened): sent to the server's origin only. */
  headers: Record<string, string>;
  /** The outbound guard's fetch: the server and the authorization server are an org's URLs. */
  fetch: UrlFetch;
  signal: AbortSignal;
  timeoutMs: number;
}

/**
 * Starts Connect: connects to the server as a run would; when it asks for authorization (401), the
 * SDK discovers its authorization server, registers a client if none is configured, and builds the
 * authorization URL (PKCE S256, `state`, `resource`, scope) the admin's browser goes to.
 */
export async function beginAuthorization(
  opts: BeginOptions,
): Promise<{ authorizationUrl: URL; pending: PendingAuthorization }> {
  const provider = new ConnectProvider(opts.redirectUrl, opts.client, opts.state);
  try {
    const session = await connectToolServer(opts.serverUrl, {
      headers: opts.headers,
      fetch: opts.fetch,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      authProvider: provider,
    });
    await session.close();
  } catch (err) {
    if (err instanceof ConnectRefused || !provider.authorizationUrl) throw err;
  }
  const { authorizationUrl, verifier, discovery } = provider;
  if (!authorizationUrl || !verifier || !discovery)
    throw new ConnectRefused('the server answered without asking for authorization: it needs no OAuth');
  return {
    authorizationUrl,
    pending: {
      serverUrl: opts.serverUrl,
      redirectUrl: opts.redirectUrl,
      codeVerifier: verifier,
      discovery,
      ...(provider.registered ? { registered: provider.registered } : {}),
    },
  };
}

/**
 * Ends Connect: exchanges the code the authorization server sent back (with the PKCE verifier,
 * at the discovered token endpoint, with the `resource`) and returns what the org secret stores.
 */
export async function completeAuthorization(
  pending: PendingAuthorization,
  code: string,
  client: ConnectClient,
  fetch: UrlFetch,
  now = Date.now(),
): Promise<StoredGrant> {
  const provider = new ConnectProvider(pending.redirectUrl, client, '');
  provider.verifier = pending.codeVerifier;
  provider.discovery = pending.discovery;
  provider.registered = pending.registered;
  await auth(provider, { serverUrl: pending.serverUrl, authorizationCode: code, fetchFn: fetch });
  if (!provider.issued) throw new ConnectRefused('the authorization server issued no token');
  return {
    v: 1,
    serverUrl: pending.serverUrl,
    redirectUrl: pending.redirectUrl,
    discovery: provider.discovery ?? pending.discovery,
    ...(client.clientId || !provider.registered ? {} : { client: provider.registered }),
    tokens: provider.issued,
    obtainedAt: now,
  };
}
