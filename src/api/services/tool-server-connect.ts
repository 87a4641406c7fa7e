import { createHash, randomBytes } from 'node:crypto';
import { describeServerFailure } from '../../activities/mcp/failures.ts';
import type { Caller } from '../../auth/caller.ts';
import type { Config } from '../../config.ts';
import { insertOAuthAuthorization, takeOAuthAuthorization } from '../../db/oauth-authorizations.ts';
import { findSealedOrgSecret, putOrgSecret } from '../../db/org-secrets.ts';
import {
  beginAuthorization,
  completeAuthorization,
  type ConnectClient,
  type PendingAuthorization,
} from '../../mcp-oauth/connect-flow.ts';
import { guardedFetch } from '../../outbound/guarded-fetch.ts';
import type { ToolServerSettings } from '../../shared/tool-server-settings.ts';
import type { ApiDeps } from '../deps.ts';
import { DomainError, invalid } from '../../shared/domain-error.ts';

/** How long an admin has to give consent once Connect started. */
const CONNECT_WINDOW_MS = 10 * 60_000;
/** Connecting to the server and discovering its authorization server, as a connection test gives up. */
const DISCOVERY_TIMEOUT_MS = 15_000;

export const CALLBACK_PATH = '/api/oauth/callback';

/** What a started Connect keeps (sealed) until its callback. */
interface PendingConnect {
  pending: PendingAuthorization;
  server: ToolServerSettings;
}

type AuthorizationCodeSettings = Extract<NonNullable<ToolServerSettings['oauth']>, { grant: 'authorization_code' }>;

/** The redirect URI: ours, from PUBLIC_BASE_URL (the api's own port on localhost without it), never from a request. */
export function callbackUrl(config: Config): string {
  if (config.http.publicBaseUrl) return `${config.http.publicBaseUrl}${CALLBACK_PATH}`;
  if (!config.api.port)
    throw invalid('Connect needs PUBLIC_BASE_URL set: the authorization server sends the browser back there');
  return `http://localhost:${config.api.port}${CALLBACK_PATH}`;
}

const stateId = (state: string) => createHash('sha256').update(state).digest('base64url');
const sealedName = (id: string) => `oauth-authorization:${id}`;

/** An org secret the settings name, opened here for the requests Connect makes; never answered or logged. */
async function openSecret(deps: ApiDeps, orgId: string, name: string): Promise<string> {
  const sealed = await findSealedOrgSecret(deps.db, orgId, name);
  if (!sealed) throw invalid(`the org has no secret named ${name}; set it first with PUT /api/admin/secrets/${name}`);
  return deps.secrets.open(orgId, name, sealed);
}

async function clientOf(deps: ApiDeps, orgId: string, oauth: AuthorizationCodeSettings): Promise<ConnectClient> {
  return {
    ...(oauth.client_id ? { clientId: oauth.client_id } : {}),
    ...(oauth.client_secret ? { clientSecret: await openSecret(deps, orgId, oauth.client_secret.secret) } : {}),
    ...(oauth.scope ? { scope: oauth.scope } : {}),
    ...(oauth.issuer ? { issuer: oauth.issuer } : {}),
  };
}

const fetchOf = (config: Config) => guardedFetch(config.outbound.privateTargets === 'allow');

/**
 * Starts Connect for a tool server with the authorization-code grant: discovers its authorization
 * server (from the api, through the outbound guard), registers a client when none is configured,
 * and keeps the PKCE verifier (sealed, single use, ten minutes) under the hash of a random state.
 * Answers the URL the admin's browser opens.
 */
export async function startConnect(deps: ApiDeps, caller: Caller, server: ToolServerSettings) {
  const oauth = server.oauth;
  if (oauth?.grant !== 'authorization_code')
    throw invalid('body.oauth: Connect is for a tool server with oauth.grant authorization_code');
  const redirectUrl = callbackUrl(deps.config);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers ?? {}))
    headers[name] = typeof value === 'string' ? value : await openSecret(deps, caller.orgId, value.secret);
  const client = await clientOf(deps, caller.orgId, oauth);
  const state = randomBytes(32).toString('base64url');
  const { authorizationUrl, pending } = await beginAuthorization({
    serverUrl: server.url,
    client,
    redirectUrl,
    state,
    headers,
    fetch: fetchOf(deps.config),
    signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS + 5000),
    timeoutMs: DISCOVERY_TIMEOUT_MS,
  }).catch((err: unknown) => {
    throw invalid(`${server.name}: could not start the authorization: ${describeServerFailure(err)}`);
  });
  const id = stateId(state);
  const expiresAt = new Date(Date.now() + CONNECT_WINDOW_MS);
  const record: PendingConnect = { pending, server };
  await insertOAuthAuthorization(deps.db, {
    id,
    orgId: caller.orgId,
    userId: caller.userId,
    server: server.name,
    sealed: deps.secrets.seal(caller.orgId, sealedName(id), JSON.stringify(record)),
    expiresAt,
  });
  return {
    server: server.name,
    authorization_url: authorizationUrl.href,
    secret: oauth.refresh_token.secret,
    expires_at: expiresAt.toISOString(),
  };
}

/** What the callback's page says. */
export type CallbackOutcome = { ok: true; server: string; secret: string } | { ok: false; reason: string };

/**
 * The authorization server sent the admin's browser back: takes the started Connect its state names
 * (once), exchanges the code at the token endpoint discovered when it started, and stores the grant
 * as the org secret the settings name. Any failure is a reason for the page, never a secret.
 */
export async function finishConnect(
  deps: ApiDeps,
  query: { state?: string; code?: string; error?: string; error_description?: string },
): Promise<CallbackOutcome> {
  if (!query.state) return { ok: false, reason: 'the answer carries no state' };
  const id = stateId(query.state);
  const row = await takeOAuthAuthorization(deps.db, id);
  if (!row)
    return { ok: false, reason: 'this authorization is unknown, was used already or has expired: Connect again' };
  if (query.error)
    return {
      ok: false,
      reason: `the authorization server answered ${query.error}${query.error_description ? `: ${query.error_description}` : ''}`,
    };
  if (!query.code) return { ok: false, reason: 'the answer carries no code' };
  const { pending, server } = JSON.parse(deps.secrets.open(row.orgId, sealedName(id), row.sealed)) as PendingConnect;
  const oauth = server.oauth as AuthorizationCodeSettings;
  try {
    const client = await clientOf(deps, row.orgId, oauth);
    const grant = await completeAuthorization(pending, query.code, client, fetchOf(deps.config));
    const name = oauth.refresh_token.secret;
    await putOrgSecret(deps.db, row.orgId, name, deps.secrets.seal(row.orgId, name, JSON.stringify(grant)));
    deps.logger.info(
      { orgId: row.orgId, userId: row.userId, server: server.name, secret: name },
      'tool server connected',
    );
    return { ok: true, server: server.name, secret: name };
  } catch (err) {
    const reason = err instanceof DomainError ? err.message : describeServerFailure(err);
    return { ok: false, reason: `${server.name}: the code could not be exchanged: ${reason}` };
  }
}
