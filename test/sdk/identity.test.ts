import { AgentRunClient, type TokenExchangeResponse } from '@agent-run/client';
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
    expect((await new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member }).identity()).role).toBe(
      'member',
    );
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

  it('renewToken stands in for the key: it supplies the first token and a new one after a 401', async () => {
    const exchanger = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member });
    let renewals = 0;
    const renewToken = async () => {
      renewals++;
      const res = await fetch(`${apiUrl()}/api/v1/auth/exchange/agent-token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ api_key: tenant.keys.member }),
      });
      return (await res.json()) as TokenExchangeResponse;
    };
    const client = new AgentRunClient({ baseUrl: apiUrl(), renewToken, agentId: tenant.agentId });
    expect(await client.identity()).toEqual(await exchanger.identity());
    await client.tasks.list();
    expect(renewals).toBe(1);
    const refusedFirst = new AgentRunClient({ baseUrl: apiUrl(), token: 'x.y.z', renewToken, agentId: tenant.agentId });
    await expect(refusedFirst.tasks.list()).resolves.toMatchObject({ tasks: expect.any(Array) });
    expect(renewals).toBe(2);
    expect(() => new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member, renewToken })).toThrow(TypeError);
  });

  it('a client built with only a token cannot tell its identity', async () => {
    await expect(new AgentRunClient({ baseUrl: apiUrl(), token: 'x.y.z' }).identity()).rejects.toThrow(TypeError);
  });
});
