import { AgentRunClient } from '@agent-run/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant();
});

describe('identity and the shared token exchange', () => {
  it('identity() names the org, user and role of the key', async () => {
    const owner = await new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.owner }).identity();
    expect(owner).toEqual({ org_id: tenant.orgId, user_id: tenant.users.owner, role: 'owner' });
    expect((await new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member }).identity()).role).toBe('member');
  });

  it('a caller that aborts while the exchange is shared does not fail the others', async () => {
    const client = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member, agentId: tenant.agentId });
    const first = new AbortController();
    const aborted = client.tasks.list({ signal: first.signal });
    const other = client.tasks.list();
    first.abort();
    await expect(aborted).rejects.toThrow();
    await expect(other).resolves.toMatchObject({ tasks: expect.any(Array) });
  });

  it('a client built with only a token cannot tell its identity', async () => {
    await expect(new AgentRunClient({ baseUrl: apiUrl(), token: 'x.y.z' }).identity()).rejects.toThrow(TypeError);
  });
});
