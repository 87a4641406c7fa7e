import { AgentRunClient } from '@agent-run/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, exchange } from '../support/http.ts';
import { closeTestDb, createTenant, type Tenant } from '../support/tenant.ts';

/**
 * GET /api/runs shows where each run came from: the SDK, the CLI and the console say so in
 * `X-Agent-Run-Client`; any other caller (or another value) is `api`. The `source` filter picks them.
 */
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  tenant = await createTenant();
  token = await exchange(tenant.keys.member);
}, 60_000);

afterAll(closeTestDb);

async function startWith(header?: string): Promise<string> {
  const res = await call('POST', '/api/run', {
    token,
    agentId: tenant.agentId,
    headers: header === undefined ? {} : { 'X-Agent-Run-Client': header },
    body: { messages: [{ role: 'user', content: 'Hello' }], stream: false },
  });
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function runsBy(query: string): Promise<{ run_id: string; source: { kind: string } }[]> {
  const res = await call('GET', `/api/runs${query}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { runs: { run_id: string; source: { kind: string } }[] }).runs;
}

describe('the source of a run', () => {
  it('is the client that started it, and the runs list filters by it', async () => {
    const sdk = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member, agentId: tenant.agentId });
    const started = {
      api: await startWith(),
      cli: await startWith('cli'),
      other: await startWith('my-script'), // not one of ours: an API caller like any other
      sdk: (await sdk.runs.start({ messages: [{ role: 'user', content: 'Hello' }] })).id,
    };
    const kinds = Object.fromEntries((await runsBy('')).map((r) => [r.run_id, r.source.kind]));
    expect(kinds).toEqual({ [started.api]: 'api', [started.cli]: 'cli', [started.other]: 'api', [started.sdk]: 'sdk' });
    expect((await runsBy('?source=cli')).map((r) => r.run_id)).toEqual([started.cli]);
    expect((await runsBy('?source=sdk')).map((r) => r.run_id)).toEqual([started.sdk]);
    expect((await runsBy('?source=api')).map((r) => r.run_id).sort()).toEqual([started.api, started.other].sort());
    expect(await runsBy('?source=console')).toEqual([]);
  });
});
