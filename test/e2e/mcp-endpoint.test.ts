import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { startApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiUrl, exchange } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let token: string;
const clients: Client[] = [];

beforeAll(async () => {
  tenant = await createTenant({ description: 'Answers questions about the test org' });
  token = await exchange(tenant.keys.member);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function connect(bearer = token, { elicitation = false } = {}): Promise<Client> {
  const client = new Client(
    { name: 'mcp-endpoint-test', version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const structured = (result: unknown) => (result as CallToolResult).structuredContent as Record<string, unknown>;
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('/mcp (agents as MCP tools)', () => {
  it('lists only the agents the caller may use, each as a tool taking message, task_id and mode', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['agent']);
    expect(tools[0]!.inputSchema).toMatchObject({ required: ['message'] });
    expect(tools[0]!.description).toBe('Answers questions about the test org'); // from the agent's settings
    const owner = await connect(tenant.keys.owner); // an API key works as the bearer itself
    expect((await owner.listTools()).tools.map((t) => t.name).sort()).toEqual(['agent', 'private']);
  });

  it('calls an agent: its final text and structured content, with progress; task_id continues the task', async () => {
    const client = await connect();
    const progress: string[] = [];
    const first = await client.callTool({ name: 'agent', arguments: { message: 'Hello over MCP' } }, undefined, {
      onprogress: (p) => void progress.push(p.message ?? ''),
    });
    expect(first.isError).toBeFalsy();
    const info = structured(first);
    expect(info).toMatchObject({
      status: 'completed',
      task_id: expect.stringMatching(/^task_/),
      run_id: expect.stringMatching(/^run_/),
    });
    const run = await testDb().run.findUniqueOrThrow({ where: { id: info.run_id as string } });
    expect(run.status).toBe('completed');
    expect(run.client).toBe('mcp'); // GET /api/runs?source=mcp finds it
    const stored = await testDb().message.findFirstOrThrow({
      where: { runId: run.id, role: 'assistant' },
      orderBy: { position: 'desc' },
    });
    expect(text(first)).toBe(stored.content);
    expect(progress.some((m) => m.startsWith('Run '))).toBe(true);

    const second = await client.callTool({ name: 'agent', arguments: { message: 'And again', task_id: info.task_id } });
    expect(structured(second)).toMatchObject({ status: 'completed', task_id: info.task_id });
    expect(structured(second).run_id).not.toBe(info.run_id);

    // Another org's caller naming this task_id gets a refusal, never the task.
    const other = await createTenant();
    const stranger = await connect(await exchange(other.keys.member));
    const refused = await stranger.callTool({ name: 'agent', arguments: { message: 'Hi', task_id: info.task_id } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/not (found|accessible)/i);
    expect(await testDb().run.count({ where: { taskId: info.task_id as string } })).toBe(2);
  });

  it('offers a run’s status, its event history and a task’s messages as resources, to whoever may see them', async () => {
    const client = await connect();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'agent-run://runs/{run_id}',
      'agent-run://runs/{run_id}/events{?after}',
      'agent-run://tasks/{task_id}/messages',
    ]);
    const info = structured(await client.callTool({ name: 'agent', arguments: { message: 'Hello resources' } }));
    const json = async (uri: string, reader = client) => {
      const { contents } = await reader.readResource({ uri });
      expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      return JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>;
    };

    const run = await testDb().run.findUniqueOrThrow({ where: { id: info.run_id as string } });
    expect(await json(`agent-run://runs/${run.id}`)).toMatchObject({
      id: run.id,
      task_id: info.task_id,
      status: 'completed',
      event_count: run.lastEventSeq,
      input_request: null,
    });
    const first = await json(`agent-run://runs/${run.id}/events?after=0`);
    const events = first.events as { event_type: string }[];
    expect(events.length).toBe(Math.min(run.lastEventSeq, 100));
    expect(events[0]!.event_type).toBe('RUN_STARTED');
    if (run.lastEventSeq <= 100) expect(first.next_after).toBeNull();
    const tail = await json(`agent-run://runs/${run.id}/events?after=${run.lastEventSeq - 1}`);
    expect(tail).toMatchObject({ count: 1, next_after: null });
    const { messages } = await json(`agent-run://tasks/${info.task_id as string}/messages`);
    expect((messages as { role: string; content: string }[]).map((m) => m.role)).toEqual(['user', 'assistant']);

    // Another member (the owner's run: same agent, someone else's task) and a member without the agent's grant see nothing.
    const ownerRun = structured(
      await (await connect(tenant.keys.owner)).callTool({ name: 'agent', arguments: { message: 'Mine' } }),
    );
    for (const uri of [
      `agent-run://runs/${ownerRun.run_id as string}`,
      `agent-run://runs/${ownerRun.run_id as string}/events?after=0`,
      `agent-run://tasks/${ownerRun.task_id as string}/messages`,
    ]) {
      await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
    }
    const outsider = await connect(tenant.keys.outsider);
    await expect(outsider.readResource({ uri: `agent-run://runs/${run.id}` })).rejects.toMatchObject({ code: -32002 });
    await expect(
      outsider.readResource({ uri: `agent-run://tasks/${info.task_id as string}/messages` }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('asks the run’s question through elicitation and the run continues with the answer', async () => {
    const client = await connect(token, { elicitation: true });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { value: 'blue' } };
    });
    const result = await client.callTool({
      name: 'agent',
      arguments: {
        message:
          'Ask me.\n/tool request_user_input {"input_type":"choice","prompt":"Pick one","choices":["red","blue"]}',
      },
    });
    expect(asked).toEqual([
      expect.objectContaining({
        message: 'Pick one',
        requestedSchema: expect.objectContaining({ required: ['value'] }),
      }),
    ]);
    expect(structured(result)).toMatchObject({ status: 'completed' });
    expect(text(result)).toContain('blue');
  });

  it('without elicitation, ends the call with the question; the answer as message with task_id continues the run', async () => {
    const client = await connect();
    const asked = await client.callTool({
      name: 'agent',
      arguments: {
        message:
          'Ask me.\n/tool request_user_input {"input_type":"choice","prompt":"Pick one","choices":["red","blue"]}',
      },
    });
    expect(asked.isError).toBeFalsy();
    const info = structured(asked);
    expect(info).toMatchObject({
      status: 'input_required',
      input_request: { input_type: 'choice', prompt: 'Pick one' },
    });
    expect(text(asked)).toContain(info.task_id as string);
    const answered = await client.callTool({ name: 'agent', arguments: { message: 'Red', task_id: info.task_id } });
    expect(structured(answered)).toMatchObject({ status: 'completed', run_id: info.run_id });
    expect(text(answered)).toContain('red');
  });

  it('a cancelled call cancels its run', async () => {
    const client = await connect();
    const controller = new AbortController();
    let runId: string | undefined;
    const call = client.callTool({ name: 'agent', arguments: { message: 'word '.repeat(400) } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => void (runId ??= /^Run (run_\w+)/.exec(p.message ?? '')?.[1]),
    });
    await eventually('the run started', () => expect(runId).toBeDefined());
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await eventually('the run is cancelled', async () =>
      expect((await testDb().run.findUniqueOrThrow({ where: { id: runId! } })).status).toBe('cancelled'),
    );
  });

  it('a dropped call resumes with Last-Event-ID on another api, after its own was killed or drained: the rest of its progress and its result, once', async () => {
    const [first, second] = await Promise.all([startApiProcess(), startApiProcess()]);
    let target = first.url;
    // The client knows one URL; a load balancer sends its requests to whichever api is up.
    const transport = new StreamableHTTPClientTransport(new URL(`${first.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: (url, init) => fetch(new URL(new URL(url).pathname, target), init),
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 10,
      },
    });
    const client = new Client({ name: 'mcp-endpoint-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);

    /** Calls the agent; once its answer streams, `leave` makes the api go and requests move to `next`. */
    async function callAcross(next: string, leave: () => Promise<unknown>) {
      const progress: { progress: number; message: string }[] = [];
      let left: Promise<unknown> | undefined;
      const args = { message: 'word '.repeat(200), mode: 'fast' };
      const result = await client.callTool({ name: 'agent', arguments: args }, undefined, {
        onprogress: ({ progress: n, message }) => {
          progress.push({ progress: n, message: message ?? '' });
          if (progress.length === 2) {
            target = next;
            left = leave(); // mid-answer: the rest comes from the other api
          }
        },
        resetTimeoutOnProgress: true,
      });
      await left;
      const info = structured(result);
      expect(info).toMatchObject({ status: 'completed' });
      const stored = await testDb().message.findFirstOrThrow({
        where: { runId: info.run_id as string, role: 'assistant' },
        orderBy: { position: 'desc' },
      });
      expect(text(result)).toBe(stored.content);
      // Each event's progress arrived once, in order, across both apis: the text adds up to the answer.
      const seqs = progress.map((p) => p.progress);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
      expect(progress[0]!.message).toMatch(/^Run run_\w+ started/);
      expect(
        progress
          .slice(1)
          .map((p) => p.message)
          .join(''),
      ).toBe(stored.content);
    }

    await callAcross(second.url, () => first.kill()); // a crash: the stream is cut
    await callAcross(apiUrl(), () => second.terminate()); // a deploy: the draining api ends the stream
    // The session is served by the api that recovered it.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['agent']);
  });

  it('a task-augmented call returns its task at once; tasks/get, tasks/result, tasks/list and tasks/cancel follow runs', async () => {
    const client = await connect();
    const messages = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: 'agent', arguments: { message: 'Hello as a task', mode: 'fast' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream) messages.push(message);
    const created = messages[0]!;
    if (created.type !== 'taskCreated') throw new Error(`expected a task first, got ${created.type}`);
    expect(created.task).toMatchObject({ taskId: expect.stringMatching(/^run_/), status: 'working' });
    const last = messages.at(-1)!;
    if (last.type !== 'result') throw new Error(`expected a result last, got ${last.type}`);
    expect(structured(last.result)).toMatchObject({ status: 'completed', run_id: created.task.taskId });
    expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe('completed');

    const long = await client.request(
      {
        method: 'tools/call',
        params: { name: 'agent', arguments: { message: 'word '.repeat(300), mode: 'fast' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toEqual([created.task.taskId, long.task.taskId]);
    await client.experimental.tasks.cancelTask(long.task.taskId);
    await eventually('the run is cancelled', async () =>
      expect((await client.experimental.tasks.getTask(long.task.taskId)).status).toBe('cancelled'),
    );
    expect((await testDb().run.findUniqueOrThrow({ where: { id: long.task.taskId } })).status).toBe('cancelled');
  });

  it('DELETE /mcp ends the session, never the run of a call in progress', async () => {
    const client = await connect();
    let runId: string | undefined;
    const call = client.callTool(
      { name: 'agent', arguments: { message: 'word '.repeat(100), mode: 'fast' } },
      undefined,
      {
        onprogress: (p) => void (runId ??= /^Run (run_\w+)/.exec(p.message ?? '')?.[1]),
      },
    );
    call.catch(() => {}); // the session's end ends the call
    await eventually('the run started', () => expect(runId).toBeDefined());
    const sessionId = client.transport!.sessionId!;
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await eventually('the run completed', async () =>
      expect((await testDb().run.findUniqueOrThrow({ where: { id: runId! } })).status).toBe('completed'),
    );
    expect(await testDb().mcpSession.count({ where: { id: sessionId } })).toBe(0);
  });

  it('answers @modelcontextprotocol/inspector-cli: tools/list, a tool call, the task continued, its messages read', async () => {
    const cli = path.join(projectRoot, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');
    const inspect = async (...args: string[]) => {
      const target = [`${apiUrl()}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
      // It looks for its package.json relative to the working directory (1.0.3): run it from its own.
      const { stdout } = await promisify(execFile)(process.execPath, [cli, ...target, ...args], {
        cwd: path.dirname(cli),
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const listed = await inspect('--method', 'tools/list');
    expect((listed.tools as { name: string }[]).map((t) => t.name)).toEqual(['agent']);
    const args = ['--tool-name', 'agent', '--tool-arg', 'message=Hello from the inspector', 'mode=fast'];
    const called = await inspect('--method', 'tools/call', ...args);
    expect(called.structuredContent).toMatchObject({ status: 'completed', run_id: expect.stringMatching(/^run_/) });
    expect(text(called)).toContain('Hello from the inspector');
    const { task_id: taskId } = called.structuredContent as { task_id: string };
    const again = ['--tool-name', 'agent', '--tool-arg', 'message=And once more', `task_id=${taskId}`];
    const continued = await inspect('--method', 'tools/call', ...again);
    expect(continued.structuredContent).toMatchObject({ status: 'completed', task_id: taskId });
    const uri = `agent-run://tasks/${taskId}/messages`;
    const read = await inspect('--method', 'resources/read', '--uri', uri);
    const { messages } = JSON.parse((read.contents as { text: string }[])[0]!.text) as {
      messages: { role: string; content: string }[];
    };
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'Hello from the inspector',
      'And once more',
    ]);
  });

  it('refuses a request without a token with 401 naming the protected-resource metadata', async () => {
    const res = await fetch(`${apiUrl()}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const header = res.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(header)?.[1];
    expect(metadataUrl).toBe(`${apiUrl()}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await (await fetch(metadataUrl!)).json();
    expect(metadata).toMatchObject({ resource: `${apiUrl()}/mcp`, bearer_methods_supported: ['header'] });
  });

  it('refuses a foreign Origin (DNS rebinding)', async () => {
    const res = await fetch(`${apiUrl()}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        Origin: 'http://evil.example',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(res.status).toBe(403);
  });
});
