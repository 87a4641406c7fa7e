/** `client.admin`: the organization's API keys, members and configuration (owners and admins only; others get PermissionError). */
import type { Transport } from '../transport.ts';
import type {
  ApiKeyList,
  ApplyDocument,
  CallOptions,
  CreatedApiKey,
  MemberList,
  OrgApplyResult,
  OrgConfiguration,
  OrgSecretList,
  RevokedApiKey,
  ToolServerConnectStarted,
  ToolServerTestRequest,
  ToolServerTestResult,
  Usage,
  UsageOptions,
} from '../types.ts';

type OrgCall = Omit<CallOptions, 'agentId'>;

export class Admin {
  constructor(private readonly transport: Transport) {}

  /** The org's API keys, prefixes only (GET /api/admin/api-keys). */
  listApiKeys(opts: OrgCall = {}): Promise<ApiKeyList> {
    return this.transport.json({ method: 'GET', path: '/api/admin/api-keys', signal: opts.signal, idempotent: true });
  }

  /** A new key for `userId` (default the caller); its `key` is shown this once (POST /api/admin/api-keys). */
  createApiKey(input: { name: string; userId?: string }, opts: OrgCall = {}): Promise<CreatedApiKey> {
    const body = { name: input.name, ...(input.userId ? { user_id: input.userId } : {}) };
    return this.transport.json({
      method: 'POST',
      path: '/api/admin/api-keys',
      body,
      signal: opts.signal,
      idempotent: false,
    });
  }

  /** Revokes a key (DELETE /api/admin/api-keys/{key_id}). */
  revokeApiKey(keyId: string, opts: OrgCall = {}): Promise<RevokedApiKey> {
    return this.transport.json({
      method: 'DELETE',
      path: `/api/admin/api-keys/${encodeURIComponent(keyId)}`,
      signal: opts.signal,
      idempotent: true,
    });
  }

  /** The org's members and their roles (GET /api/admin/members). */
  listMembers(opts: OrgCall = {}): Promise<MemberList> {
    return this.transport.json({ method: 'GET', path: '/api/admin/members', signal: opts.signal, idempotent: true });
  }

  /** The org's configuration: `document` in the shape `apply` takes, plus ids, inbound paths and widget keys (GET /api/admin/org). */
  org(opts: OrgCall = {}): Promise<OrgConfiguration> {
    return this.transport.json({ method: 'GET', path: '/api/admin/org', signal: opts.signal, idempotent: true });
  }

  /**
   * Usage per UTC day and agent (runs, failures, tokens, credits) in a window (default: the last 30 days),
   * per agent and in total, with the credits left and whether they run low (GET /api/admin/usage).
   */
  usage(query: UsageOptions = {}, opts: OrgCall = {}): Promise<Usage> {
    return this.transport.json({
      method: 'GET',
      path: '/api/admin/usage',
      query,
      signal: opts.signal,
      idempotent: true,
    });
  }

  /**
   * Applies a document to the caller's org through the same code as `admin apply` (POST /api/admin/apply):
   * lists left out are left alone, nothing is deleted. `changes` says what changed; new keys and generated
   * secrets appear once. With `dryRun` nothing is kept. Owner-only changes by an admin: PermissionError.
   */
  apply(doc: ApplyDocument, opts: OrgCall & { dryRun?: boolean } = {}): Promise<OrgApplyResult> {
    const query = opts.dryRun ? { dry_run: 'true' } : undefined;
    return this.transport.json({
      method: 'POST',
      path: '/api/admin/apply',
      query,
      body: doc,
      signal: opts.signal,
      idempotent: false,
    });
  }

  /** The org's secrets: names and dates, never a value (GET /api/admin/secrets). */
  listSecrets(opts: OrgCall = {}): Promise<OrgSecretList> {
    return this.transport.json({ method: 'GET', path: '/api/admin/secrets', signal: opts.signal, idempotent: true });
  }

  /** Creates or replaces the secret `name`; its value is never shown again (PUT /api/admin/secrets/{name}). */
  setSecret(name: string, value: string, opts: OrgCall = {}): Promise<{ name: string; created: boolean }> {
    return this.transport.json({
      method: 'PUT',
      path: `/api/admin/secrets/${encodeURIComponent(name)}`,
      body: { value },
      signal: opts.signal,
      idempotent: true,
    });
  }

  /** Deletes the secret `name` (DELETE /api/admin/secrets/{name}). */
  deleteSecret(name: string, opts: OrgCall = {}): Promise<{ name: string; deleted: true }> {
    return this.transport.json({
      method: 'DELETE',
      path: `/api/admin/secrets/${encodeURIComponent(name)}`,
      signal: opts.signal,
      idempotent: true,
    });
  }

  /**
   * Tests a tool server as an agent's settings define it (POST /api/admin/tool-servers/test): a worker
   * connects as a run would and lists what it would offer; `ok: false` with the `reason` when it cannot.
   */
  testToolServer(server: ToolServerTestRequest, opts: OrgCall = {}): Promise<ToolServerTestResult> {
    return this.transport.json({
      method: 'POST',
      path: '/api/admin/tool-servers/test',
      body: server,
      signal: opts.signal,
      idempotent: true,
    });
  }

  /**
   * Starts Connect for a tool server with `oauth.grant` `authorization_code` (POST /api/admin/tool-servers/connect):
   * open `authorization_url` in the admin's browser; after consent, the grant is stored in the org secret `secret`.
   */
  connectToolServer(server: ToolServerTestRequest, opts: OrgCall = {}): Promise<ToolServerConnectStarted> {
    // Not retried: each start registers a pending authorization (and possibly a client) of its own.
    return this.transport.json({
      method: 'POST',
      path: '/api/admin/tool-servers/connect',
      body: server,
      signal: opts.signal,
      idempotent: false,
    });
  }
}
