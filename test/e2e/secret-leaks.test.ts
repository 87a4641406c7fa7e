import type { ChildProcess } from 'node:child_process';
import { eventually } from '../support/eventually.ts';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import { exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import { historyText, startEverythingServer, startRecordingProxy } from '../support/mcp-servers.ts';
import { startOAuthCodeServer } from '../support/oauth-code-server.ts';
import { startOAuthMcpServer } from '../support/oauth-mcp-server.ts';
import { freeListenPort } from '../support/ports.ts';
import { terminate } from '../support/processes.ts';
import { expectOneTerminal } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

/**
 * An org secret used as a tool server's header (or a model provider's key) reaches its server and nothing else: no answer of the
 * api, no log line of the api or the worker (both at trace level, run on a queue of their own so
 * every line is ours to read), no part of the workflow history.
 */
describe('org secrets never leak', () => {
  const secretValue = `leak-canary-${randomBytes(12).toString('hex')}`;
  const queue = `secret-leaks-${randomBytes(3).toString('hex')}`;
  let server: { url: string; child: ChildProcess };
  let recorder: Awaited<ReturnType<typeof startRecordingProxy>>;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let tenant: Tenant;
  let owner: string;
  let apiPort: number;

  /** Calls our own api as `token`; returns the status and the body as text. */
  const get = async (path: string, token: string, agentId?: string) => {
    const res = await fetch(`${api.url}${path}`, {
      headers: { Authorization: `Bearer ${token}`, ...(agentId ? { 'X-Agent-Id': agentId } : {}) },
    });
    return { status: res.status, text: await res.text() };
  };

  /** Applies one agent's settings through the api, as the org's owner. */
  const apply = (name: string, settings: unknown) =>
    fetch(`${api.url}/api/admin/apply`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ agents: [{ name, settings }] }),
    });

  beforeAll(async () => {
    server = await startEverythingServer('streamableHttp');
    recorder = await startRecordingProxy(server.url);
    const logLevel = { LOG_LEVEL: 'trace' };
    // A port of its own: Connect's redirect URI is http://localhost:<API_PORT>/api/oauth/callback (no PUBLIC_BASE_URL).
    apiPort = await freeListenPort();
    api = await startApiProcess({
      TEMPORAL_TASK_QUEUE: queue,
      API_PORT: String(apiPort),
      OUTBOUND_PRIVATE_TARGETS: 'allow',
      ...logLevel,
    });
    worker = await startWorkerProcess(queue, {
      SECRETS_KEY: inject('secretsKey'),
      OUTBOUND_PRIVATE_TARGETS: 'allow',
      ...logLevel,
    });
    tenant = await createTenant({ model: 'instant' });
    owner = await exchange(tenant.keys.owner);
    const put = await fetch(`${api.url}/api/admin/secrets/LEAK_TOKEN`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${owner}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ value: secretValue }),
    });
    expect(put.status).toBe(200);
    const header = { Authorization: { secret: 'LEAK_TOKEN' } };
    const settings = {
      model: 'instant',
      tool_servers: [
        { name: 'everything', url: recorder.url, headers: header, allowed_tools: ['echo'] },
        // Refused connections: the failure paths (retries, reasons told to the model) log and store errors.
        { name: 'down', url: `http://127.0.0.1:${await freeListenPort()}/mcp`, headers: header },
      ],
    };
    const applied = await apply('agent', settings);
    expect(applied.status, await applied.clone().text()).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    recorder?.server.close();
    if (server) await terminate(server.child);
  });

  it('reaches the server, and no api answer, log line or workflow history holds its value', async () => {
    const member = await exchange(tenant.keys.member);
    recorder.failToolCalls = 1; // one transport failure: the retry path logs too
    const started = await fetch(`${api.url}/api/run`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${member}`, 'X-Agent-Id': tenant.agentId, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: '/tool everything__echo {"message":"hello"}' }],
        stream: false,
      }),
    });
    expect(started.status).toBe(202);
    const { id: runId, task_id: taskId } = (await started.json()) as { id: string; task_id: string };
    const stream = await fetch(`${api.url}/api/tasks/${taskId}/stream`, {
      headers: { Authorization: `Bearer ${member}`, 'X-Agent-Id': tenant.agentId },
    });
    const frames = withoutHeartbeats(await readSse(stream));
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')?.data.content).toBe('{"text":"Echo: hello"}');

    // Not vacuous: the worker opened the secret and sent it, on every request the server got.
    expect(recorder.seen.length).toBeGreaterThan(1);
    expect(new Set(recorder.seen)).toEqual(new Set([secretValue]));

    const answers = {
      stream: JSON.stringify(frames),
      agents: await get('/api/agents', owner),
      org: await get('/api/admin/org', owner),
      secrets: await get('/api/admin/secrets', owner),
      events: await get(`/api/runs/${runId}/events`, member, tenant.agentId),
      status: await get(`/api/run/${taskId}/status`, member, tenant.agentId),
      task: await get(`/api/tasks/${taskId}`, member, tenant.agentId),
      tasks: await get('/api/tasks', member, tenant.agentId),
      messages: await get(`/api/tasks/${taskId}/messages`, member, tenant.agentId),
      artifacts: await get(`/api/tasks/${taskId}/artifacts`, member, tenant.agentId),
    };
    for (const [name, answer] of Object.entries(answers)) {
      if (typeof answer !== 'string') expect(answer.status, name).toBe(200);
      expect(JSON.stringify(answer), name).not.toContain(secretValue);
    }
    expect(answers.secrets.text).toContain('LEAK_TOKEN');
    expect(answers.org.text).toContain('LEAK_TOKEN');

    const history = await historyText(runId);
    expect(history).toContain('LEAK_TOKEN');
    expect(history).not.toContain(secretValue);

    // The logs are the run's: both processes logged it, and the worker its failed first try.
    const apiLog = api.output.join('\n');
    const workerLog = [...worker.stdout, ...worker.stderr].join('\n');
    expect(apiLog.includes(taskId), 'the api logged the run').toBe(true);
    expect(workerLog.includes(runId), 'the worker logged the run').toBe(true);
    expect(workerLog.includes('tool server call failed'), 'the worker logged the failed call').toBe(true);
    expect(apiLog.includes(secretValue), 'the api logged the secret').toBe(false);
    expect(workerLog.includes(secretValue), 'the worker logged the secret').toBe(false);
  }, 120_000);

  it('reaches the model provider as its key, and no api answer, log line or workflow history holds it', async () => {
    const provider = await startFakeOpenAi({ chunks: ['Hello ', 'with ', 'your key.'] });
    try {
      // The operator points the agent at the provider (base_url is theirs); the org's owner names the org secret as its key.
      const modelSettings = { provider: 'openai-compatible', base_url: provider.baseUrl, model: 'fake-model' };
      await testDb().agent.update({ where: { id: tenant.privateAgentId }, data: { modelSettings } });
      expect((await apply('private', { ...modelSettings, api_key_env: 'JWT_SECRET' })).status).toBe(403);
      const unknown = await apply('private', { ...modelSettings, api_key: { secret: 'NO_SUCH' } });
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toMatch(/api_key: the org has no secret named NO_SUCH/);
      const applied = await apply('private', { ...modelSettings, api_key: { secret: 'LEAK_TOKEN' } });
      expect(applied.status, await applied.clone().text()).toBe(200);

      const headers = { Authorization: `Bearer ${owner}`, 'X-Agent-Id': tenant.privateAgentId };
      const started = await fetch(`${api.url}/api/run`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: false }),
      });
      expect(started.status).toBe(202);
      const { id: runId, task_id: taskId } = (await started.json()) as { id: string; task_id: string };
      const frames = withoutHeartbeats(
        await readSse(await fetch(`${api.url}/api/tasks/${taskId}/stream`, { headers })),
      );
      expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
      const text = frames.filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT').map((f) => f.data.delta);
      expect(text.join('')).toBe('Hello with your key.');
      // The worker opened the secret and sent it as the provider's key.
      expect(provider.authorizations).toEqual([`Bearer ${secretValue}`]);

      const answers = [
        JSON.stringify(frames),
        await get('/api/agents', owner),
        await get('/api/admin/org', owner),
        await get(`/api/runs/${runId}/events`, owner, tenant.privateAgentId),
        await get(`/api/tasks/${taskId}/messages`, owner, tenant.privateAgentId),
      ];
      for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(secretValue);
      const history = await historyText(runId);
      expect(history).not.toContain(secretValue);
      // Its lines reach us through a pipe, a moment after the run's end.
      await eventually('the worker to have logged the run', () =>
        expect([...worker.stdout, ...worker.stderr].join('\n')).toContain(runId),
      );
      const workerLog = [...worker.stdout, ...worker.stderr].join('\n');
      expect(api.output.join('\n').includes(secretValue), 'the api logged the secret').toBe(false);
      expect(workerLog.includes(secretValue), 'the worker logged the secret').toBe(false);
    } finally {
      await provider.close();
    }
  }, 60_000);

  it('gets an OAuth token for a tool server with the client secret (client credentials), and no answer, log line or history holds either', async () => {
    const secured = await startOAuthMcpServer({ clientId: 'agent-run', clientSecret: secretValue });
    try {
      const oauth = {
        grant: 'client_credentials',
        client_id: 'agent-run',
        client_secret: { secret: 'NO_SUCH' },
        scope: 'tools',
      };
      const server = { name: 'secured', url: secured.url, headers: { 'X-Team': 'backend' }, oauth };
      const unknown = await apply('agent', { model: 'instant', tool_servers: [server] });
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toMatch(
        /tool_servers\.0\.oauth\.client_secret: the org has no secret named NO_SUCH/,
      );
      const settings = {
        model: 'instant',
        tool_servers: [{ ...server, oauth: { ...oauth, client_secret: { secret: 'LEAK_TOKEN' } } }],
      };
      const applied = await apply('agent', settings);
      expect(applied.status, await applied.clone().text()).toBe(200);

      // The connection test takes the same settings (its worker gets the token the runs then reuse).
      const check = (body: unknown) =>
        fetch(`${api.url}/api/admin/tool-servers/test`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${owner}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      const missing = await check(server);
      expect(missing.status).toBe(400);
      expect(await missing.text()).toMatch(/no secret named NO_SUCH \(body\.oauth\.client_secret\)/);
      const checked = await check(settings.tool_servers[0]);
      const checkedText = await checked.text();
      expect(checked.status, checkedText).toBe(200);
      expect(JSON.parse(checkedText)).toMatchObject({ ok: true, tools: [{ name: 'secured__whoami' }] });

      const member = await exchange(tenant.keys.member);
      const headers = { Authorization: `Bearer ${member}`, 'X-Agent-Id': tenant.agentId };
      const runOnce = () => runToolOnce(api.url, headers, 'secured__whoami', '{"text":"client agent-run (tools)"}');
      const first = await runOnce();
      const second = await runOnce();

      // Discovered from the server's 401, one token for the test and both runs (kept on the worker), the secret sent to the token endpoint only.
      expect(secured.tokenRequests).toHaveLength(1);
      expect(secured.tokenRequests[0]!.authorization).toBe(
        `Basic ${Buffer.from(`agent-run:${secretValue}`).toString('base64')}`,
      );
      expect(secured.tokenRequests[0]!.headers['x-team']).toBeUndefined();
      const [token] = secured.issued;
      expect(secured.mcpRequests.filter((r) => !r.authorization)).toHaveLength(1);
      expect(
        secured.mcpRequests.slice(1).every((r) => r.authorization === `Bearer ${token}` && r.team === 'backend'),
      ).toBe(true);

      const answers = [
        checkedText,
        JSON.stringify([first.frames, second.frames]),
        await get('/api/agents', owner),
        await get('/api/admin/org', owner),
        await get(`/api/runs/${first.runId}/events`, member, tenant.agentId),
        await get(`/api/tasks/${first.taskId}/messages`, member, tenant.agentId),
      ];
      const logs = [api.output.join('\n'), worker.stdout.join('\n'), worker.stderr.join('\n')];
      const histories = [await historyText(first.runId), await historyText(second.runId)];
      expect(histories[0]).toContain('LEAK_TOKEN');
      for (const text of [...answers.map((a) => JSON.stringify(a)), ...logs, ...histories]) {
        expect(text).not.toContain(secretValue);
        expect(text).not.toContain(token);
      }
    } finally {
      await secured.close();
    }
  }, 60_000);

  it('connects an authorization-code server (Connect), runs with its token, refreshes and stores the rotated grant, and no answer, log line or history holds a token', async () => {
    const tickets = await startOAuthCodeServer({ accessTokenSeconds: 8 });
    try {
      const post = (path: string, token: string, body: unknown) =>
        fetch(`${api.url}${path}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      // No client_id: the client registers itself when connecting. The grant's secret need not exist yet.
      const server = {
        name: 'tickets',
        url: tickets.url,
        oauth: { grant: 'authorization_code', scope: 'tickets', refresh_token: { secret: 'TICKETS_GRANT' } },
      };
      const applied = await apply('agent', { model: 'instant', tool_servers: [server] });
      expect(applied.status, await applied.clone().text()).toBe(200);
      const before = await (await post('/api/admin/tool-servers/test', owner, server)).json();
      expect(before).toMatchObject({ ok: false, reason: expect.stringMatching(/not connected/) });

      const member = await exchange(tenant.keys.member);
      expect((await post('/api/admin/tool-servers/connect', member, server)).status).toBe(403);
      const noOAuth = await post('/api/admin/tool-servers/connect', owner, { name: 'tickets', url: tickets.url });
      expect(noOAuth.status).toBe(400);

      const started = await post('/api/admin/tool-servers/connect', owner, server);
      const startedText = await started.text();
      expect(started.status, startedText).toBe(200);
      const { authorization_url: authorizationUrl, secret } = JSON.parse(startedText) as Record<string, string>;
      expect(secret).toBe('TICKETS_GRANT');
      const asked = new URL(authorizationUrl!).searchParams;
      const redirectUri = `http://localhost:${apiPort}/api/oauth/callback`;
      expect(Object.fromEntries(asked)).toMatchObject({
        response_type: 'code',
        code_challenge_method: 'S256',
        redirect_uri: redirectUri,
        resource: tickets.url,
        scope: 'tickets',
        client_id: tickets.registered[0]!.client_id,
      });
      expect(tickets.registered).toHaveLength(1);
      expect(tickets.registered[0]!.redirect_uris).toEqual([redirectUri]);

      // The admin's browser: consent (at once here), then back to our callback with the code.
      const consent = await fetch(authorizationUrl!, { redirect: 'manual' });
      expect(consent.status).toBe(302);
      const callback = consent.headers.get('location')!;
      expect(callback.startsWith(`${redirectUri}?`)).toBe(true);
      const page = await fetch(callback);
      const pageText = await page.text();
      expect(page.status, pageText).toBe(200);
      expect(pageText).toContain('Connected tickets');
      const again = await fetch(callback);
      expect(again.status).toBe(400); // single use
      expect(await again.text()).toMatch(/unknown, was used already or has expired/);
      const forged = await fetch(`${api.url}/api/oauth/callback?state=forged&code=x`);
      expect(forged.status).toBe(400);
      const connectedAt = Date.now();
      const secretsAfterConnect = JSON.parse((await get('/api/admin/secrets', owner)).text) as {
        secrets: { name: string; updated_at: string }[];
      };
      const grantSecret = secretsAfterConnect.secrets.find((s) => s.name === 'TICKETS_GRANT');
      expect(grantSecret).toBeDefined();

      const checked = await post('/api/admin/tool-servers/test', owner, server);
      const checkedText = await checked.text();
      expect(JSON.parse(checkedText)).toMatchObject({ ok: true, tools: [{ name: 'tickets__whoami' }] });

      const headers = { Authorization: `Bearer ${member}`, 'X-Agent-Id': tenant.agentId };
      const clientId = tickets.registered[0]!.client_id;
      const runOnce = () =>
        runToolOnce(api.url, headers, 'tickets__whoami', JSON.stringify({ text: `alice via ${clientId} (tickets)` }));
      const first = await runOnce();
      // The access token lives 8 s and is refreshed 2 s before it expires: the next run's worker refreshes it.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, connectedAt + 6500 - Date.now())));
      const second = await runOnce();
      expect(tickets.refreshes).toBeGreaterThanOrEqual(1);
      const newest = tickets.issued.at(-2)!; // the last access token issued (each grant issues access then refresh)
      expect(tickets.mcpAuthorizations.at(-1)).toBe(`Bearer ${newest}`);
      // The rotated refresh token was written back to the org secret.
      const secretsAfterRefresh = JSON.parse((await get('/api/admin/secrets', owner)).text) as {
        secrets: { name: string; updated_at: string }[];
      };
      const rotated = secretsAfterRefresh.secrets.find((s) => s.name === 'TICKETS_GRANT')!;
      expect(Date.parse(rotated.updated_at)).toBeGreaterThan(Date.parse(grantSecret!.updated_at));

      const answers = [
        startedText,
        pageText,
        checkedText,
        JSON.stringify([first.frames, second.frames]),
        await get('/api/agents', owner),
        await get('/api/admin/org', owner),
        await get('/api/admin/secrets', owner),
        await get(`/api/runs/${first.runId}/events`, member, tenant.agentId),
      ];
      const logs = [api.output.join('\n'), worker.stdout.join('\n'), worker.stderr.join('\n')];
      const histories = [await historyText(first.runId), await historyText(second.runId)];
      expect(histories[0]).toContain('TICKETS_GRANT');
      const secrets = [
        ...tickets.issued,
        ...tickets.registered.flatMap((c) => (c.client_secret ? [c.client_secret] : [])),
      ];
      expect(secrets.length).toBeGreaterThanOrEqual(4);
      for (const text of [...answers.map((a) => JSON.stringify(a)), ...logs, ...histories])
        for (const value of secrets) expect(text).not.toContain(value);
    } finally {
      await tickets.close();
    }
  }, 90_000);
});

/** A background run whose one step calls `tool`, followed on its task stream to the end; its tool result must be `result`. */
async function runToolOnce(apiUrl: string, headers: Record<string, string>, tool: string, result: string) {
  const started = await fetch(`${apiUrl}/api/run`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: `/tool ${tool} {}` }], stream: false }),
  });
  expect(started.status).toBe(202);
  const { id: runId, task_id: taskId } = (await started.json()) as { id: string; task_id: string };
  const frames = withoutHeartbeats(await readSse(await fetch(`${apiUrl}/api/tasks/${taskId}/stream`, { headers })));
  expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
  expect(frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')?.data.content).toBe(result);
  return { runId, taskId, frames };
}
