import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolServerActivities } from '../../src/activities/mcp/tool-server-activities.ts';
import { loadConfig } from '../../src/config.ts';
import { call, exchange, type SseFrame } from '../support/http.ts';
import { eventually } from '../support/eventually.ts';
import { freeListenPort } from '../support/ports.ts';
import { directives, results, retries } from '../support/mcp-runs.ts';
import { historyText, startEverythingServer, startRecordingProxy } from '../support/mcp-servers.ts';
import { terminate } from '../support/processes.ts';
import {
  answer,
  expectOneTerminal,
  expectReplays,
  readTaskStream,
  temporalClient,
  startBackgroundRun,
  waitForPending,
  type Caller,
} from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

const statuses = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS')
    .map((f) => f.data.data as Record<string, unknown>)
    .filter((d) => String(d.status).startsWith('tool_server_'));

describe('MCP tool servers', () => {
  const secretValue = `mcp-secret-${Math.random().toString(36).slice(2)}`;
  let server: { url: string; child: ChildProcess };
  let legacy: { url: string; child: ChildProcess };
  let recorder: Awaited<ReturnType<typeof startRecordingProxy>>;
  let downUrl: string;
  let tenant: Tenant;
  let member: Caller;
  let ownerToken: string;

  beforeAll(async () => {
    server = await startEverythingServer('streamableHttp');
    legacy = await startEverythingServer('sse');
    recorder = await startRecordingProxy(server.url);
    downUrl = `http://127.0.0.1:${await freeListenPort()}/mcp`; // nothing listens there
    tenant = await createTenant({ model: 'instant' });
    ownerToken = await exchange(tenant.keys.owner);
    member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const settings = {
      model: 'instant',
      approval_required_tools: ['everything__get-structured-content'],
      sensitive_tools: ['everything__*'],
      tool_servers: [
        {
          name: 'everything',
          url: recorder.url,
          headers: { Authorization: { secret: 'EVERYTHING_TOKEN' }, 'X-Team': 'backend' },
          allowed_tools: [
            'echo',
            'get-sum',
            'get-resource-reference',
            'get-structured-content',
            'get-tiny-image',
            'trigger-long-running-operation',
          ],
          timeout_seconds: 20,
        },
        { name: 'down', url: downUrl },
        { name: 'legacy', url: legacy.url, allowed_tools: ['echo'] },
      ],
    };
    const apply = (body: unknown) => call('POST', '/api/admin/apply', { token: ownerToken, body });
    // The header's secret must exist before the settings that name it are applied.
    const refused = await apply({ agents: [{ name: 'agent', settings }] });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('no secret named EVERYTHING_TOKEN');
    const put = await call('PUT', '/api/admin/secrets/EVERYTHING_TOKEN', {
      token: ownerToken,
      body: { value: secretValue },
    });
    expect(put.status).toBe(200);
    const applied = await apply({ agents: [{ name: 'agent', settings }] });
    expect(applied.status, await applied.clone().text()).toBe(200);
  });

  afterAll(async () => {
    recorder?.server.close();
    if (server) await terminate(server.child);
    if (legacy) await terminate(legacy.child);
  });

  it('lists the tools at the start, calls them (also over the older SSE transport), and goes on without a server that is down', async () => {
    const sent = recorder.methods.length;
    const { taskId, runId } = await startBackgroundRun(
      member,
      directives(
        ['everything__echo', { message: 'hello' }],
        ['everything__get-sum', { a: 2, b: 3 }],
        ['legacy__echo', { message: 'over SSE' }],
      ),
    );
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');

    const status = statuses(frames);
    expect(status).toEqual(
      expect.arrayContaining([
        { status: 'tool_server_connecting', server: 'everything' },
        { status: 'tool_server_connecting', server: 'down' },
        {
          status: 'tool_server_ready',
          server: 'everything',
          tool_count: 6,
          tools: [
            'everything__echo',
            'everything__get-resource-reference',
            'everything__get-structured-content',
            'everything__get-sum',
            'everything__get-tiny-image',
            'everything__trigger-long-running-operation',
          ],
        },
        {
          status: 'tool_server_retrying',
          server: 'down',
          attempt: 2,
          reason: expect.stringContaining('ECONNREFUSED'),
        },
        { status: 'tool_server_failed', server: 'down', reason: expect.stringContaining('ECONNREFUSED') },
        { status: 'tool_server_connecting', server: 'legacy' },
        { status: 'tool_server_ready', server: 'legacy', tool_count: 1, tools: ['legacy__echo'] },
      ]),
    );
    expect(status).toHaveLength(7);
    expect(results(frames)).toEqual([
      { text: 'Echo: hello' },
      { text: 'The sum of 2 and 3 is 5.' },
      { text: 'Echo: over SSE' },
    ]);

    // The listing is in the history (a replay never reconnects), the model was told which server is
    // down, and the header's secret is in no part of the history.
    const history = await historyText(runId);
    expect(history).toContain('listToolServerTools');
    expect(history).toContain('could not be reached when this run started');
    expect(history).toContain('EVERYTHING_TOKEN');
    expect(history).not.toContain(secretValue);
    expect(JSON.stringify(frames)).not.toContain(secretValue);
    // The worker resolved the secret when it called: the server got it on every request.
    expect(recorder.seen.length).toBeGreaterThan(0);
    expect(new Set(recorder.seen)).toEqual(new Set([secretValue]));
    // One session for the run: the listing's, kept on the worker, served both calls (no initialize each).
    expect(recorder.methods.slice(sent).filter((m) => m === 'initialize')).toHaveLength(1);
    expect(recorder.methods.slice(sent).filter((m) => m === 'tools/call')).toHaveLength(2);
    await expectReplays(runId, 'mcp-tools-listed-and-called');
  });

  it('tests a connection for owners and admins: the tools a run would offer, or why not; never the secret', async () => {
    const test = (token: string, body: unknown) => call('POST', '/api/admin/tool-servers/test', { token, body });
    const server = {
      name: 'everything',
      url: recorder.url,
      headers: { Authorization: { secret: 'EVERYTHING_TOKEN' } },
      allowed_tools: ['echo', 'get-sum', 'no-such-tool'],
    };
    const before = recorder.seen.length;
    const res = await test(ownerToken, server);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({
      ok: true,
      server: 'everything',
      transport: 'streamable-http',
      tools: [
        { name: 'everything__echo', tool: 'echo', description: expect.any(String) },
        { name: 'everything__get-sum', tool: 'get-sum', description: expect.any(String) },
      ],
      count: 2,
      unknown_allowed_tools: ['no-such-tool'],
      reason: null,
    });
    // The worker opened the secret and sent it; the answer does not hold it.
    expect(new Set(recorder.seen.slice(before))).toEqual(new Set([secretValue]));
    expect(text).not.toContain(secretValue);

    const down = (await (await test(ownerToken, { name: 'down', url: downUrl })).json()) as Record<string, unknown>;
    expect(down).toMatchObject({ ok: false, tools: [], reason: expect.stringContaining('ECONNREFUSED') });

    const unknownSecret = await test(ownerToken, { ...server, headers: { Authorization: { secret: 'NOPE' } } });
    expect(unknownSecret.status).toBe(400);
    expect(((await unknownSecret.json()) as { detail: string }).detail).toMatch(/no secret named NOPE/);
    const plain = await test(ownerToken, { ...server, headers: { Authorization: 'Bearer in-plain-text' } });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { detail: string }).detail).toMatch(/headers.Authorization: carries a credential/);
    expect((await test(member.token, server)).status).toBe(403);

    // Each test is a short workflow: its history holds the secret's name, never its value.
    const client = await temporalClient();
    let checkId = '';
    await eventually('the test workflows to be listed', async () => {
      const query = `WorkflowType = 'toolServerCheckWorkflow' AND OrgId = '${tenant.orgId}'`;
      const done: { workflowId: string; startTime: Date }[] = [];
      for await (const w of client.workflow.list({ query })) if (w.status.name === 'COMPLETED') done.push(w);
      expect(done).toHaveLength(2);
      // The first: the server with a secret header
      checkId = done.sort((a, b) => a.startTime.getTime() - b.startTime.getTime())[0]!.workflowId;
    });
    expect(await historyText(checkId)).toContain('EVERYTHING_TOKEN');
    expect(await historyText(checkId)).not.toContain(secretValue);
    await expectReplays(checkId, 'tool-server-checked');
  });

  it('a connection test refuses a private address when private targets are not allowed', async () => {
    const config = loadConfig({
      ...process.env,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'ars-refuse-')),
      OUTBOUND_PRIVATE_TARGETS: 'refuse',
    });
    const deps = { db: testDb(), config, logger: pino({ level: 'silent' }), env: {}, deltaFlushMs: 25 };
    const { checkToolServer } = createToolServerActivities(deps);
    const before = recorder.methods.length;
    const check = await new MockActivityEnvironment().run(checkToolServer, {
      orgId: tenant.orgId,
      server: { name: 'everything', url: recorder.url, timeoutSeconds: 10 },
    });
    expect(check).toMatchObject({
      ok: false,
      tools: [],
      reason: expect.stringMatching(/not a public address: refused/),
    });
    expect(recorder.methods.length).toBe(before);
  });

  it("shows the model a tool's own error (isError) without retrying it, and the run goes on", async () => {
    const { taskId } = await startBackgroundRun(
      member,
      directives(['everything__get-sum', { a: 'two' }], ['everything__echo', { message: 'after the error' }]),
    );
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(results(frames)).toEqual([
      { error: { code: 'TOOL_ERROR', message: expect.stringContaining('Input validation error') } },
      { text: 'Echo: after the error' },
    ]);
    expect(retries(frames)).toEqual([]);
  });

  it('retries a call whose server answers 5xx, and tells the model when it stays down', async () => {
    recorder.failToolCalls = 1;
    const once = await startBackgroundRun(member, directives(['everything__echo', { message: 'second try' }]));
    const onceFrames = await readTaskStream(member, once.taskId);
    expect(results(onceFrames)).toEqual([{ text: 'Echo: second try' }]);
    expect(retries(onceFrames)).toEqual([2]);

    recorder.failToolCalls = 3;
    const down = await startBackgroundRun(member, directives(['everything__echo', { message: 'never' }]));
    const downFrames = await readTaskStream(member, down.taskId);
    expect(expectOneTerminal(downFrames).type).toBe('RUN_FINISHED');
    expect(results(downFrames)).toEqual([
      {
        error: {
          code: 'TOOL_SERVER_UNAVAILABLE',
          message: expect.stringMatching(/^tool server everything could not be reached \(attempt 3 of 3\): .*503/),
        },
      },
    ]);
    expect(retries(downFrames)).toEqual([2, 3]);
  });

  it('cancelling the run mid-call sends the server notifications/cancelled', async () => {
    const { taskId } = await startBackgroundRun(
      member,
      directives(['everything__trigger-long-running-operation', { duration: 60, steps: 60 }]),
    );
    const calls = () => recorder.methods.filter((m) => m === 'tools/call').length;
    const before = calls();
    await eventually('the long call to reach the server', () => expect(calls()).toBeGreaterThan(before));
    const cancelled = await call('POST', `/api/tasks/${taskId}/cancel`, {
      token: member.token,
      agentId: member.agentId,
      body: {},
    });
    expect(cancelled.status).toBe(200);
    expect(expectOneTerminal(await readTaskStream(member, taskId))).toMatchObject({
      type: 'RUN_ERROR',
      code: 'CANCELLED',
    });
    await eventually('the server to be told', () => expect(recorder.methods).toContain('notifications/cancelled'));
  });

  it("relays the server's progress notifications as progress of the tool call, before its result", async () => {
    const { taskId } = await startBackgroundRun(
      member,
      directives(['everything__trigger-long-running-operation', { duration: 2, steps: 4 }]),
    );
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const callId = frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data.tool_call_id;
    const progress = frames
      .map((f, i) => ({ i, data: f.data.type === 'CUSTOM' ? (f.data.data as Record<string, unknown>) : {} }))
      .filter((p) => p.data.status === 'tool_progress');
    expect(progress.map((p) => p.data)).toEqual(
      [1, 2, 3, 4].map((n) => ({
        status: 'tool_progress',
        tool_call_id: callId,
        tool: 'everything__trigger-long-running-operation',
        attempt: 1,
        progress: n,
        total: 4,
      })),
    );
    const resultAt = frames.findIndex((f) => f.data.type === 'TOOL_CALL_RESULT');
    expect(progress.every((p) => p.i < resultAt)).toBe(true);
  });

  it("stores a tool's images and embedded resources as artifacts of the run and gives the model their ids", async () => {
    const { taskId, runId } = await startBackgroundRun(member, directives(['everything__get-tiny-image', {}]));
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const [result] = results(frames) as { text: string; attachments: Record<string, unknown>[] }[];
    expect(result!.text).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(result!.attachments).toEqual([
      {
        type: 'image',
        mime_type: 'image/png',
        size_bytes: expect.any(Number),
        artifact_id: expect.stringMatching(/^art_/),
      },
    ]);
    const artifactId = result!.attachments[0]!.artifact_id as string;
    const created = frames.find((f) => f.data.type === 'CUSTOM' && f.data.name === 'ARTIFACT_CREATED')!.data
      .data as Record<string, unknown>;
    expect(created).toMatchObject({
      artifact_id: artifactId,
      kind: 'image',
      title: 'everything__get-tiny-image image 1',
    });
    const stored = await testDb().artifact.findUniqueOrThrow({ where: { id: artifactId } });
    expect(stored).toMatchObject({ runId, taskId, kind: 'image', status: 'completed' });
    expect((stored.content as { mime_type: string }).mime_type).toBe('image/png');

    // An embedded text resource becomes a document artifact; the model gets its text (clipped) and the id.
    const resource = await startBackgroundRun(
      member,
      directives(['everything__get-resource-reference', { resourceType: 'Text', resourceId: 2 }]),
    );
    const resourceFrames = await readTaskStream(member, resource.taskId);
    const [described] = results(resourceFrames) as { attachments: Record<string, unknown>[] }[];
    const block = described!.attachments.find((a) => a.type === 'resource')!;
    expect(block).toMatchObject({
      uri: expect.stringContaining('/2'),
      mime_type: 'text/plain',
      text: expect.stringContaining('Resource 2'),
      artifact_id: expect.stringMatching(/^art_/),
    });
    const document = await testDb().artifact.findUniqueOrThrow({ where: { id: block.artifact_id as string } });
    expect(document).toMatchObject({ runId: resource.runId, kind: 'document', status: 'completed' });
    expect(document.content).toEqual({ format: 'text', body: block.text });
  });

  it('gates an approval-required MCP tool, sensitive through server__*, and runs it once approved', async () => {
    const { taskId, runId } = await startBackgroundRun(
      member,
      directives(['everything__get-structured-content', { location: 'New York' }]),
    );
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({
      input_type: 'action_approval',
      action: { tool_name: 'everything__get-structured-content', sensitive: true },
    });
    const approve = { request_id: pending.request_id, run_id: runId, input_type: 'action_approval', approved: true };
    expect((await answer(member, taskId, approve)).status).toBe(403); // sensitive: owners and admins only
    const owner = { token: ownerToken, agentId: tenant.agentId };
    expect((await answer(owner, taskId, approve)).status).toBe(200);
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(results(frames)).toEqual([
      {
        text: expect.stringContaining('temperature'),
        structured_content: {
          temperature: expect.any(Number),
          conditions: expect.any(String),
          humidity: expect.any(Number),
        },
      },
    ]);
    await expectReplays(runId, 'mcp-tool-approved');
  });

  it("asks the run's user when a server elicits during a call: answered through the input endpoint, declined when no answer comes in time", async () => {
    // The owner's other agent gets the everything server's elicitation tool twice: with time to answer, and with 3 s.
    const owner = { token: ownerToken, agentId: tenant.privateAgentId };
    const tool = ['trigger-elicitation-request'];
    const tool_servers = [
      { name: 'ask', url: server.url, allowed_tools: tool, timeout_seconds: 30 },
      { name: 'hurry', url: server.url, allowed_tools: tool, timeout_seconds: 3 },
    ];
    const body = { agents: [{ name: 'private', settings: { model: 'instant', tool_servers } }] };
    expect((await call('POST', '/api/admin/apply', { token: ownerToken, body })).status).toBe(200);

    const { taskId, runId } = await startBackgroundRun(owner, directives(['ask__trigger-elicitation-request', {}]));
    const pending = await waitForPending(owner, taskId);
    expect(pending).toMatchObject({
      input_type: 'structured_questions',
      prompt: 'Please provide inputs for the following fields:',
      tool_call_id: expect.any(String),
      elicitation: { server: 'ask', tool: 'trigger-elicitation-request', requested_schema: { required: ['name'] } },
    });
    // A question per field of the requested schema; every one is answered, an optional one may be left empty.
    const questions = (pending.questions as { question: string; choices?: string[] }[]).map((q) => q.question);
    expect(questions).toHaveLength(13);
    expect(pending.questions).toContainEqual({
      question: 'Titled Single Select Enum (optional)',
      choices: ['Superman', 'Green Lantern', 'Wonder Woman'],
    });
    const answers: Record<string, string> = Object.fromEntries(questions.map((q) => [q, '']));
    Object.assign(answers, {
      String: 'Ada Lovelace',
      'Boolean (optional)': 'yes',
      'Integer (optional)': '7',
      'Titled Single Select Enum (optional)': 'Wonder Woman',
      'Untitled Multiple Select Enum (one or more, separated by commas) (optional)': 'Piano, Drums',
    });
    const reply = { request_id: pending.request_id, run_id: runId, input_type: 'structured_questions' };
    // Checked against the requested schema before anything changes: the integer's maximum is 100, the name is required.
    const tooBig = await answer(owner, taskId, { ...reply, answers: { ...answers, 'Integer (optional)': '700' } });
    expect(tooBig.status).toBe(422);
    expect(await tooBig.text()).toContain('must be <= 100');
    expect((await answer(owner, taskId, { ...reply, answers: { ...answers, String: '' } })).status).toBe(422);
    expect((await answer(owner, taskId, { ...reply, answers })).status).toBe(200);
    expect((await answer(owner, taskId, { ...reply, answers })).status).toBe(409);

    const frames = await readTaskStream(owner, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const { text } = (results(frames) as { text: string }[])[0]!;
    expect(text).toContain('User provided the requested information');
    const sent = JSON.parse(text.slice(text.indexOf('{'))) as { action: string; content: Record<string, unknown> };
    expect(sent).toEqual({
      action: 'accept',
      content: {
        name: 'Ada Lovelace',
        check: true,
        integer: 7,
        titledSingleSelectEnum: 'hero-3',
        untitledMultipleSelectEnum: ['Piano', 'Drums'],
        // The fields left empty get the schema's defaults (SEP-1034).
        firstLine: 'It was a dark and stormy night.',
        number: 3.14,
        untitledSingleSelectEnum: 'Monica',
        titledMultipleSelectEnum: ['fish-1'],
        legacyTitledEnum: 'pet-1',
      },
    });
    const custom = (name: string) =>
      frames.filter((f) => f.data.type === 'CUSTOM' && f.data.name === name).map((f) => f.data.data);
    expect(custom('USER_INPUT_REQUIRED')).toHaveLength(1);
    expect(custom('SYSTEM_STATUS')).toContainEqual(
      expect.objectContaining({ status: 'answered', request_id: pending.request_id, action: 'accept' }),
    );

    // Nobody answers within the call's window: declined shortly before its timeout, and the run says so.
    const late = await startBackgroundRun(owner, directives(['hurry__trigger-elicitation-request', {}]));
    const unanswered = await waitForPending(owner, late.taskId);
    const lateFrames = await readTaskStream(owner, late.taskId);
    expect(expectOneTerminal(lateFrames).type).toBe('RUN_FINISHED');
    expect((results(lateFrames) as { text: string }[])[0]!.text).toContain('User declined to provide');
    const expired = lateFrames
      .filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS')
      .map((f) => f.data.data as Record<string, unknown>)
      .find((d) => d.status === 'input_expired');
    expect(expired).toMatchObject({
      request_id: unanswered.request_id,
      action: 'decline',
      reason: "no answer within the tool call's 3 s: declined",
    });
    const stale = { request_id: unanswered.request_id, run_id: late.runId, input_type: 'structured_questions' };
    expect((await answer(owner, late.taskId, { ...stale, answers })).status).toBe(409);
  }, 60_000);
});
