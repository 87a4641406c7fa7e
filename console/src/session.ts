/** The signed-in session: one SDK client per agent, built from the API key kept in sessionStorage. */
import { AgentRunClient, type Identity } from '@agent-run/client';

const KEY_ITEM = 'ars.console.apiKey';
const AGENT_ITEM = 'ars.console.agentId';

export interface Session {
  identity: Identity;
  /** The client for calls without an agent (approvals). */
  client: AgentRunClient;
  /** A client whose calls act through `agentId` (X-Agent-Id). */
  forAgent(agentId: string): AgentRunClient;
}

/** Checks the key by exchanging it (the SDK keeps and renews the token) and remembers it for this tab. */
export async function signIn(apiKey: string): Promise<Session> {
  const make = (agentId?: string) => new AgentRunClient({ baseUrl: location.origin, apiKey, agentId });
  const client = make();
  const identity = await client.identity();
  sessionStorage.setItem(KEY_ITEM, apiKey);
  const clients = new Map<string, AgentRunClient>();
  const forAgent = (agentId: string) => {
    let c = clients.get(agentId);
    if (!c) clients.set(agentId, (c = make(agentId)));
    return c;
  };
  return { identity, client, forAgent };
}

/** The key of this tab's earlier sign-in (a reload signs in again with it). */
export function savedKey(): string | undefined {
  return sessionStorage.getItem(KEY_ITEM) ?? undefined;
}

export function signOut(): void {
  sessionStorage.removeItem(KEY_ITEM);
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
