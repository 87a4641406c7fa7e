/** `client.admin`: the organization's API keys and members (owners and admins only; others get PermissionError). */
import type { Transport } from '../transport.ts';
import type { ApiKeyList, CallOptions, CreatedApiKey, MemberList, RevokedApiKey } from '../types.ts';

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
    return this.transport.json({ method: 'POST', path: '/api/admin/api-keys', body, signal: opts.signal, idempotent: false });
  }

  /** Revokes a key (DELETE /api/admin/api-keys/{key_id}). */
  revokeApiKey(keyId: string, opts: OrgCall = {}): Promise<RevokedApiKey> {
    return this.transport.json({ method: 'DELETE', path: `/api/admin/api-keys/${encodeURIComponent(keyId)}`, signal: opts.signal, idempotent: true });
  }

  /** The org's members and their roles (GET /api/admin/members). */
  listMembers(opts: OrgCall = {}): Promise<MemberList> {
    return this.transport.json({ method: 'GET', path: '/api/admin/members', signal: opts.signal, idempotent: true });
  }
}
