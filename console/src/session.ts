/**
 * The signed-in session. The API key is sent once, to sign in, and kept nowhere: the api answers with
 * an hour's token and sets an HttpOnly session cookie (SameSite=Strict, sent only to
 * /api/v1/auth/console) that no script can read; every later token comes from renewing through it.
 * A reload renews from the cookie; the session ends at sign-out, after 12 hours, or when the key is
 * revoked or the user removed (docs/console.md "Sign-in and the API key").
 */
import { AgentRunClient, type Identity, type TokenExchangeResponse } from '@agent-run/client';

const SESSION_PATH = '/api/v1/auth/console/session';
const REFRESH_PATH = '/api/v1/auth/console/refresh';
/** Where earlier versions kept the key itself: removed from any tab that still has it. */
const LEGACY_KEY_ITEM = 'ars.console.apiKey';
const AGENT_ITEM = 'ars.console.agentId';
/**
 * That this browser signed in (no secret: the session is the HttpOnly cookie). Without it a page
 * load does not ask to renew, so a browser that never signed in sees no refused request.
 */
const SIGNED_IN_ITEM = 'ars.console.signedIn';
/** A cached token is handed out while it has this long left, counted from when it arrived (browser and api clocks may differ). */
const RENEW_BEFORE_MS = 2 * 60_000;

export interface Session {
  identity: Identity;
  /** The client for calls without an agent (approvals). */
  client: AgentRunClient;
  /** A client whose calls act through `agentId` (X-Agent-Id). */
  forAgent(agentId: string): AgentRunClient;
}

/** Called when the session can no longer renew its token (ended, revoked, another user signed in): the tab signs in again. */
export type OnSessionEnded = (why: string) => void;

/** A refusal of the sign-in api, shaped like the SDK's errors (`status`, `detail`). */
class SessionError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
  }
}

async function post(path: string, body?: unknown): Promise<TokenExchangeResponse> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as TokenExchangeResponse & { detail?: unknown };
  if (!res.ok) throw new SessionError(res.status, json.detail ?? res.statusText);
  return json;
}

/** The session of a first token: every client renews through the one cookie, sharing the token it got. */
function sessionOf(first: TokenExchangeResponse, onEnded: OnSessionEnded): Session {
  sessionStorage.removeItem(LEGACY_KEY_ITEM);
  const identity: Identity = { org_id: first.org_id, user_id: first.user_id, role: first.role };
  let current = { issued: first, until: Date.now() + first.expires_in * 1000 - RENEW_BEFORE_MS };
  let renewing: Promise<TokenExchangeResponse> | undefined;
  let ended = false;
  const renewToken = async (): Promise<TokenExchangeResponse> => {
    if (Date.now() < current.until) return current.issued;
    renewing ??= post(REFRESH_PATH)
      .then((issued) => {
        // The cookie is the browser's, not the tab's: a sign-in in another tab replaced it.
        if (issued.user_id !== identity.user_id || issued.org_id !== identity.org_id)
          throw new SessionError(401, 'Signed in as someone else in another tab: sign in again');
        current = { issued, until: Date.now() + issued.expires_in * 1000 - RENEW_BEFORE_MS };
        return issued;
      })
      .catch((err: unknown) => {
        if ((err as { status?: number }).status === 401 && !ended) {
          ended = true;
          onEnded(errorText(err));
        }
        throw err;
      })
      .finally(() => (renewing = undefined));
    return renewing;
  };
  const make = (agentId?: string) =>
    new AgentRunClient({ baseUrl: location.origin, renewToken, agentId, clientName: 'console' });
  const client = make();
  const clients = new Map<string, AgentRunClient>();
  const forAgent = (agentId: string) => {
    let c = clients.get(agentId);
    if (!c) clients.set(agentId, (c = make(agentId)));
    return c;
  };
  return { identity, client, forAgent };
}

/** Signs in with `apiKey` (the api checks it and starts the session); the key is not kept. */
export async function signIn(apiKey: string, onEnded: OnSessionEnded): Promise<Session> {
  const session = sessionOf(await post(SESSION_PATH, { api_key: apiKey }), onEnded);
  localStorage.setItem(SIGNED_IN_ITEM, '1');
  return session;
}

/** Whether this browser signed in and may still have a session (restoreSession then asks). */
export function mayHaveSession(): boolean {
  return localStorage.getItem(SIGNED_IN_ITEM) !== null;
}

/** The browser's live session (after a reload), or undefined when there is none. */
export async function restoreSession(onEnded: OnSessionEnded): Promise<Session | undefined> {
  sessionStorage.removeItem(LEGACY_KEY_ITEM);
  if (!mayHaveSession()) return undefined;
  try {
    return sessionOf(await post(REFRESH_PATH), onEnded);
  } catch (err) {
    if ((err as { status?: number }).status !== 401) throw err;
    localStorage.removeItem(SIGNED_IN_ITEM);
    return undefined;
  }
}

/** Ends the session: the api clears its cookie (tokens already handed out expire within the hour). */
export async function signOut(): Promise<void> {
  localStorage.removeItem(SIGNED_IN_ITEM);
  await fetch(SESSION_PATH, { method: 'DELETE', credentials: 'same-origin' });
}

export function savedAgentId(): string {
  return sessionStorage.getItem(AGENT_ITEM) ?? '';
}

export function saveAgentId(agentId: string): void {
  sessionStorage.setItem(AGENT_ITEM, agentId);
}

/** Owners and admins decide sensitive approvals and see every agent. */
export function isAdmin(identity: Identity): boolean {
  return identity.role === 'owner' || identity.role === 'admin';
}

/** The message of an SDK error (its `detail` when the service sent one). */
export function errorText(err: unknown): string {
  const detail = (err as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((d: { msg?: string }) => d.msg).join('; ');
  return err instanceof Error ? err.message : String(err);
}
