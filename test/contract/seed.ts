import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seedOrg, seedTag } from '../../src/admin/seed-org.ts';
import type { Db } from '../../src/db/client.ts';
import { waitUntil } from '../../src/processes/lifecycle.ts';

/** Real ids of every kind of object the API addresses, so a contract run reaches past 404. */
export interface ContractSeed {
  token: string;
  agentId: string;
  ids: { task_id: string; run_id: string; artifact_id: string; approval_id: string; agent_id: string };
  /** Given to DELETE /api/tasks/{task_id} only, so the other operations keep their task. */
  deletableTaskId: string;
  /** A real `next_cursor` of each paged list, by operationId: opaque values a schema cannot describe. */
  cursors: Record<string, string>;
  /** A real event id of the finished run, for `last_event_id`. */
  eventId: string;
  /**
   * A widget visitor token, the origin its key allows, the visitor's task and a real event id of it, for the
   * /api/v1/widget/* operations.
   */
  widget: { visitorToken: string; origin: string; taskId: string; eventId: string };
  /** A task whose run waits on an approval, for cancel, pause, resume and comment. */
  activeTask: { taskId: string; runId: string };
  /** A finished task that positive run starts with a `task_id` continue (contract_hooks.py), instead of a random id's 404. */
  runTaskId: string;
  /** Runs that wait for a text answer: the owner's and a widget visitor's, for the two input-answer operations. */
  textInput: PendingText;
  widgetTextInput: PendingText;
  /** One flow of each inbound kind, by the operationId that serves it. */
  flows: Record<string, string>;
  /** A real outbound webhook delivery, made to the seed's receiver. */
  deliveryId: string;
  /** Stops the webhook receiver. */
  close(): Promise<void>;
}

/** A run waiting for a text answer, with the request's ids. */
export interface PendingText {
  taskId: string;
  runId: string;
  requestId: string;
}

/** Answers every webhook delivery 204, so deliveries succeed at once instead of retrying. */
async function startWebhookReceiver() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/contract-hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The origin the seeded widget key allows. */
export const CONTRACT_WIDGET_ORIGIN = 'http://contract.example.test';

/**
 * A fresh org (owner, agent that needs approval for save_memory) and one finished run that
 * created an artifact, asked for an approval (answered) and saved a memory — all over HTTP,
 * as a client would, except the org itself, which the admin code creates as an operator does.
 */
export async function seedContractTenant(db: Db, apiUrl: string): Promise<ContractSeed> {
  const tag = seedTag();
  const receiver = await startWebhookReceiver();
  const email = `contract-${tag}@example.test`;
  const org = await seedOrg(db, {
    name: `contract-${tag}`,
    credits: 10_000_000,
    users: [{ email, role: 'owner' }],
    agents: [
      { name: 'agent', settings: { approval_required_tools: ['save_memory'] }, access: [email] },
      { name: 'widget', customer_facing: true },
    ],
    keys: [{ user: email, name: 'contract' }],
    widget_keys: [{ name: 'contract', agent: 'widget', origins: [CONTRACT_WIDGET_ORIGIN] }],
    webhooks: [{ name: 'contract', url: receiver.url, events: ['run.completed'] }],
    flows: [
      { name: 'hook', kind: 'webhook', agent: 'agent', user: email, message: 'Event: {{type}}' },
      { name: 'mail', kind: 'email', agent: 'agent', user: email, message: '{{subject}}' },
      {
        name: 'repo',
        kind: 'repository',
        agent: 'agent',
        user: email,
        message: '{{issue.title}}',
        repository: { events: ['issues.opened'] },
      },
    ],
  });
  const agentId = org.agents['agent']!;
  const http = async (method: string, path: string, body?: unknown, token?: string, agent = agentId) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        'Content-Type': 'application/json',
        'X-Agent-Id': agent,
        Origin: CONTRACT_WIDGET_ORIGIN,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const token = (await http('POST', '/api/v1/auth/exchange/agent-token', { api_key: org.keys[0]!.key }))
    .access_token as string;
  const saveMemory = `/tool save_memory ${JSON.stringify({ content: 'The contract run seeded this memory' })}`;
  const createArtifact = `/tool create_artifact ${JSON.stringify({ kind: 'table', title: 'Cities', content: { columns: ['city'], rows: [['Berlin']] } })}`;
  const askText = `/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: 'Your name?' })}`;
  const startRun = async (content: string, as = token, path = '/api/run') => {
    const run = await http('POST', path, { messages: [{ role: 'user', content }], stream: false }, as);
    return { taskId: run.task_id as string, runId: run.id as string };
  };
  const pendingRequest = async (taskId: string, as = token, prefix = '/api') => {
    let request: Record<string, unknown> | undefined;
    await waitUntil(
      async () => {
        const pending = await http('GET', `${prefix}/tasks/${taskId}/pending-input`, undefined, as);
        request = pending.request as Record<string, unknown> | undefined;
        return pending.pending === true;
      },
      30_000,
      'the seeded run to ask',
    );
    return request!;
  };
  const pendingText = async (as = token, prefix = '/api'): Promise<PendingText> => {
    const run = await startRun(askText, as, `${prefix}/run`);
    return { ...run, requestId: (await pendingRequest(run.taskId, as, prefix)).request_id as string };
  };

  // A finished run: two artifacts, an answered approval, two memories (two of each, so lists have a next page).
  const done = await startRun([createArtifact, createArtifact, saveMemory, saveMemory].join('\n'));
  const request = await pendingRequest(done.taskId);
  const approveRun = {
    request_id: request.request_id,
    run_id: done.runId,
    input_type: 'action_approval',
    approved: true,
    approve_run_scope: true,
  };
  await http('POST', `/api/tasks/${done.taskId}/input`, approveRun, token);
  const status = async () =>
    ((await http('GET', `/api/run/${done.taskId}/status`, undefined, token)).run as { status: string }).status;
  await waitUntil(async () => (await status()) === 'completed', 30_000, 'the seeded run to complete');
  const artifacts = await http('GET', `/api/tasks/${done.taskId}/artifacts?limit=1`, undefined, token);
  const memories = await http('GET', `/api/agents/${agentId}/memories?limit=1`, undefined, token);
  const events = await http('GET', `/api/runs/${done.runId}/events?limit=1`, undefined, token);
  const artifactId = (artifacts.artifacts as { id: string }[])[0]?.id;
  if (!artifactId || !artifacts.next_cursor || !memories.next_cursor || !events.next_cursor)
    throw new Error('the seeded run made too few artifacts, memories or events');

  const visitorToken = (await http('POST', '/api/v1/widget/session', { widget_key: org.widget_keys[0]!.key }))
    .visitor_token as string;
  const visitorRun = await http(
    'POST',
    '/api/v1/widget/run',
    { messages: [{ role: 'user', content: 'hello' }], stream: false },
    visitorToken,
  );

  const visitorRunPath = `/api/runs/${visitorRun.id as string}/events?limit=1`;
  const visitorEvents = await http('GET', visitorRunPath, undefined, token, org.agents['widget']);
  const visitorEventId = (visitorEvents.events as { id: string }[])[0]!.id;
  const textInput = await pendingText();
  const widgetTextInput = await pendingText(visitorToken, '/api/v1/widget');
  const runTask = await startRun('Hello');
  await waitUntil(
    async () => (await http('GET', `/api/run/${runTask.taskId}/status`, undefined, token)).active === false,
    30_000,
    'the seeded run to finish',
  );

  // A run waiting for approval: its approval is pending, and its task is the one DELETE may remove.
  const waiting = await startRun(saveMemory);
  const approvalId = (await pendingRequest(waiting.taskId)).approval_id as string;
  // Another one, active, for the run-control operations and the input answer.
  const active = await startRun(saveMemory);
  await pendingRequest(active.taskId);

  // A messaging flow needs a customer-facing agent and the org secret holding its bot token.
  await http('PUT', '/api/admin/secrets/CONTRACT_SLACK_BOT', { value: 'xoxb-contract-run' }, token);
  const applied = await http(
    'POST',
    '/api/admin/apply',
    {
      flows: [
        {
          name: 'chat',
          kind: 'messaging',
          agent: 'widget',
          user: email,
          message: '{{event.text}}',
          secret: 'a-slack-signing-secret-0123456789',
          messaging: { bot_token_secret: 'CONTRACT_SLACK_BOT' },
        },
      ],
    },
    token,
  );
  const flowId = (name: string) =>
    ((applied.org as { flows: { name: string; id: string }[] }).flows.find((f) => f.name === name) ??
      org.flows.find((f) => f.name === name))!.id;
  let deliveryId: string | undefined;
  await waitUntil(
    async () => {
      const deliveries = await http('GET', '/api/webhooks/deliveries', undefined, token);
      deliveryId = (deliveries.deliveries as { id: string }[] | undefined)?.[0]?.id;
      return deliveryId !== undefined;
    },
    30_000,
    'a webhook delivery of the seeded run',
  );
  const runs = await http('GET', '/api/runs?limit=1', undefined, token);
  if (!runs.next_cursor) throw new Error('the seeded runs did not fill two pages of GET /api/runs');

  return {
    token,
    agentId,
    ids: {
      task_id: done.taskId,
      run_id: done.runId,
      artifact_id: artifactId,
      approval_id: approvalId,
      agent_id: agentId,
    },
    deletableTaskId: waiting.taskId,
    cursors: {
      listTaskArtifacts: artifacts.next_cursor as string,
      listAgentMemories: memories.next_cursor as string,
      listRunEvents: events.next_cursor as string,
      listRuns: runs.next_cursor as string,
    },
    eventId: (events.events as { id: string }[])[0]!.id,
    widget: {
      visitorToken,
      origin: CONTRACT_WIDGET_ORIGIN,
      taskId: visitorRun.task_id as string,
      eventId: visitorEventId,
    },
    activeTask: active,
    runTaskId: runTask.taskId,
    textInput,
    widgetTextInput,
    flows: {
      flowWebhook: flowId('hook'),
      flowEmail: flowId('mail'),
      flowRepositoryEvent: flowId('repo'),
      flowSlackEvent: flowId('chat'),
    },
    deliveryId: deliveryId!,
    close: receiver.close,
  };
}
