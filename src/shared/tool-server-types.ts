/** A tool server of an agent as its run uses it: fixed at run start; header values name secrets, never hold them. */
export interface ToolServerRef {
  name: string;
  url: string;
  headers?: Record<string, string | { secret: string }>;
  /** The server's own tool names the agent may call; all when absent. */
  allowedTools?: string[];
  timeoutSeconds: number;
  /** OAuth: secrets are named here and opened by the activity that gets the token. */
  oauth?: ToolServerOAuth;
}

export type ToolServerOAuth = ClientCredentialsOAuth | AuthorizationCodeOAuth;

/** A server's OAuth client (client-credentials grant), as a run uses it. */
export interface ClientCredentialsOAuth {
  grant: 'client_credentials';
  clientId: string;
  /** One of the two: a client secret, or a private key that signs a client assertion (private_key_jwt). */
  clientSecret?: { secret: string };
  privateKey?: { secret: string; algorithm: string };
  scope?: string;
  /** The only authorization server the client secret may go to; the server's advertised one when absent. */
  issuer?: string;
}

/** A server's OAuth client for the authorization-code grant (Connect), as a run uses it. */
export interface AuthorizationCodeOAuth {
  grant: 'authorization_code';
  /** A pre-registered client; absent, the client Connect registered (kept in the `refreshToken` secret). */
  clientId?: string;
  clientSecret?: { secret: string };
  scope?: string;
  /** The only authorization server the credentials may go to; the one Connect discovered when absent. */
  issuer?: string;
  /** The org secret Connect wrote: the grant's tokens and what refreshing them needs (src/mcp-oauth/stored-grant.ts). */
  refreshToken: { secret: string };
}

/** One tool of a tool server, as listed when the run started. */
export interface ServerTool {
  /** As the model sees it: `<server>__<tool>`. */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  /** The tool's input JSON Schema, as the server gave it. */
  parameters: Record<string, unknown>;
}

/** What the run's tool servers offered at its start (in the workflow history: replays never reconnect). */
export interface ToolServersListing {
  tools: ServerTool[];
  /** Servers that could not be reached or listed, and why: the model is told their tools are unavailable. */
  unavailable: { server: string; reason: string }[];
}

/** A tool call's seconds when the agent's settings give none. */
export const DEFAULT_TOOL_SERVER_TIMEOUT_SECONDS = 60;

/** What testing a tool server's connection found (an admin's check before saving it to an agent). */
export interface ToolServerCheck {
  ok: boolean;
  /** The transport the server answered on. */
  transport?: 'streamable-http' | 'sse';
  /** The tools a run would offer the model: within `allowed_tools`, named `<server>__<tool>`. */
  tools: { name: string; tool: string; description: string }[];
  /** Names in `allowed_tools` that the server does not offer. */
  unknownAllowedTools: string[];
  /** Why the server could not be reached or listed (when not ok): one line, never a header value. */
  reason?: string;
}
