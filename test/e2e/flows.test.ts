import { createHash, createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyFile, parseApplyFile, type AppliedOrg } from '../../src/admin/apply.ts';
import { AdminError } from '../../src/admin/errors.ts';
import { flowScheduleId } from '../../src/shared/flows.ts';
import { eventually } from '../support/eventually.ts';
import { apiUrl, call, exchange } from '../support/http.ts';
import { expectReplays, temporalClient, type Caller } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';
import { runPriorityKeys } from '../../src/shared/run-priority.ts';

let tenant: Tenant;
let orgName: string;
let owner: Caller;

/** Applies flows (and agents) to the tenant's org as an operator would; returns the org's result. */
async function apply(spec: Record<string, unknown>): Promise<AppliedOrg> {
  return (await applyFile(testDb(), parseApplyFile({ orgs: [{ name: orgName, ...spec }] }))).orgs[0]!;
}

const ownerEmail = async () => (await testDb().user.findUniqueOrThrow({ where: { id: tenant.users.owner } })).email;

function waitForRunEnd(runId: string): Promise<string> {
  return eventually(`run ${runId} to end`, async () => {
    const run = await testDb().run.findUnique({ where: { id: runId } });
    expect(['completed', 'failed', 'cancelled']).toContain(run?.status);
    return run!.status;
  });
}

const firstUserMessage = async (taskId: string) =>
  (await testDb().message.findFirstOrThrow({ where: { taskId, role: 'user' }, orderBy: { position: 'asc' } })).content;

function post(path: string, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${apiUrl()}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
}

function signed(secret: string, id: string, body: string, at = new Date()): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

beforeAll(async () => {
  tenant = await createTenant();
  orgName = (await testDb().org.findUniqueOrThrow({ where: { id: tenant.orgId } })).name;
  owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
});

describe('webhook flows', () => {
  let path: string;
  let secret: string;

  beforeAll(async () => {
    const org = await apply({
      flows: [
        {
          name: 'orders',
          kind: 'webhook',
          agent: 'agent',
          user: await ownerEmail(),
          message: 'New order {{order.id}}: {{order.note}}',
          task_key: '{{order.customer}}',
        },
      ],
    });
    path = org.flows[0]!.path!;
    secret = org.flows[0]!.secret!;
    expect(path).toMatch(/^\/api\/v1\/flows\/flw_\w+\/webhook$/);
  });

  it('starts a run from a signed event, renders the message, records the source, and answers a repeat with the same run', async () => {
    const body = JSON.stringify({ order: { id: 'A-1', note: 'two lamps', customer: 'c-7' } });
    const res = await post(path, body, signed(secret, 'evt_1', body));
    expect(res.status).toBe(202);
    const first = (await res.json()) as { task_id: string; run_id: string; duplicate: boolean };
    expect(first.duplicate).toBe(false);
    expect(await waitForRunEnd(first.run_id)).toBe('completed');
    expect(await firstUserMessage(first.task_id)).toBe('New order A-1: two lamps');

    const again = await post(path, body, signed(secret, 'evt_1', body));
    expect(await again.json()).toEqual({ task_id: first.task_id, run_id: first.run_id, duplicate: true });
    expect(await testDb().run.count({ where: { taskId: first.task_id } })).toBe(1);

    // The same key (customer) continues the task; the task list shows where it came from.
    const second = JSON.stringify({ order: { id: 'A-2', note: 'one more', customer: 'c-7' } });
    const next = (await (await post(path, second, signed(secret, 'evt_2', second))).json()) as {
      task_id: string;
      run_id: string;
    };
    expect(next.task_id).toBe(first.task_id);
    expect(await waitForRunEnd(next.run_id)).toBe('completed');
    const list = (await (await call('GET', '/api/tasks', { token: owner.token, agentId: owner.agentId })).json()) as {
      tasks: { id: string; source: unknown }[];
    };
    expect(list.tasks.find((t) => t.id === first.task_id)!.source).toMatchObject({
      kind: 'webhook',
      flow_name: 'orders',
      external_id: 'evt_1',
    });
    // The runs list finds both runs by the flow's name, and not among the API's.
    const runs = async (source: string) =>
      (
        (await (await call('GET', `/api/runs?source=${source}`, { token: owner.token })).json()) as {
          runs: { run_id: string; source: { kind: string; flow_name: string | null } }[];
        }
      ).runs;
    const byFlow = await runs('orders');
    expect(byFlow.map((r) => r.run_id)).toEqual([next.run_id, first.run_id]);
    expect(byFlow[0]!.source).toMatchObject({ kind: 'flow', flow_name: 'orders' });
    expect((await runs('api')).map((r) => r.run_id)).not.toContain(first.run_id);
    // The Temporal UI shows it on each run's workflow page.
    for (const [runId, event] of [
      [first.run_id, 'evt_1'],
      [next.run_id, 'evt_2'],
    ] as const) {
      const description = await (await temporalClient()).workflow.getHandle(runId).describe();
      expect(await description.staticDetails()).toContain(`source: webhook flow **orders**, event \`${event}\``);
      expect(description.priority).toMatchObject({ fairnessKey: tenant.orgId, priorityKey: runPriorityKeys.flow });
    }
  });

  it('refuses a bad signature, a stale timestamp and an unknown flow, starting nothing', async () => {
    const body = JSON.stringify({ order: { id: 'X', note: 'x', customer: 'x' } });
    const before = await testDb().run.count({ where: { task: { orgId: tenant.orgId } } });
    expect(
      (await post(path, body, signed('whsec_' + Buffer.alloc(32, 7).toString('base64'), 'evt_bad', body))).status,
    ).toBe(401);
    expect((await post(path, body, signed(secret, 'evt_old', body, new Date(Date.now() - 10 * 60_000)))).status).toBe(
      401,
    );
    expect((await post(path, body.replace('x', 'y'), signed(secret, 'evt_tampered', body))).status).toBe(401);
    expect((await post('/api/v1/flows/flw_nope/webhook', body, signed(secret, 'evt_3', body))).status).toBe(404);
    expect((await post(path.replace('/webhook', '/github'), body, {})).status).toBe(404); // a webhook flow is not a repository flow
    expect(await testDb().run.count({ where: { task: { orgId: tenant.orgId } } })).toBe(before);
  });
});

describe('repository and email flows', () => {
  it('starts runs for the repository events the flow lists and ignores the rest', async () => {
    const org = await apply({
      flows: [
        {
          name: 'issues',
          kind: 'repository',
          agent: 'agent',
          user: await ownerEmail(),
          message: 'Triage issue #{{issue.number}}: {{issue.title}}',
          task_key: '{{issue.number}}',
          repository: { events: ['issues.opened'] },
        },
      ],
    });
    const { path, secret } = org.flows[0]!;
    const deliver = (event: string, delivery: string, payload: object, key = secret!) => {
      const body = JSON.stringify(payload);
      return post(path!, body, {
        'X-GitHub-Event': event,
        'X-GitHub-Delivery': delivery,
        'X-Hub-Signature-256': `sha256=${createHmac('sha256', key).update(body).digest('hex')}`,
      });
    };
    const opened = await deliver('issues', 'd-1', { action: 'opened', issue: { number: 42, title: 'Crash on save' } });
    expect(opened.status).toBe(202);
    const started = (await opened.json()) as { task_id: string; run_id: string };
    expect(await waitForRunEnd(started.run_id)).toBe('completed');
    expect(await firstUserMessage(started.task_id)).toBe('Triage issue #42: Crash on save');
    expect(await (await deliver('issues', 'd-2', { action: 'closed', issue: { number: 42 } })).json()).toMatchObject({
      run_id: null,
      ignored: expect.stringContaining('issues.closed'),
    });
    expect(await (await deliver('ping', 'd-3', { zen: 'hi' })).json()).toMatchObject({
      run_id: null,
      ignored: expect.any(String),
    });
    expect(
      (await deliver('issues', 'd-4', { action: 'opened', issue: { number: 1 } }, 'wrong-secret-wrong-secret')).status,
    ).toBe(401);
    // GitHub signs only the body: the captured delivery replayed under a new id is the same event, not a new run.
    const replayed = await deliver('issues', 'd-replay', {
      action: 'opened',
      issue: { number: 42, title: 'Crash on save' },
    });
    expect(await replayed.json()).toEqual({ task_id: started.task_id, run_id: started.run_id, duplicate: true });
    expect(await testDb().run.count({ where: { taskId: started.task_id } })).toBe(1);
  });

  it('starts a run from a signed inbound email, deduplicated on its message id', async () => {
    const org = await apply({
      flows: [
        {
          name: 'inbox',
          kind: 'email',
          agent: 'agent',
          user: await ownerEmail(),
          message: 'Email from {{from}}: {{subject}}\n\n{{text}}',
        },
      ],
    });
    const { path, secret } = org.flows[0]!;
    const mail = JSON.stringify({
      from: 'ann@example.test',
      to: 'bot@example.test',
      subject: 'Invoice',
      text: 'Please check.',
      message_id: '<m1@example.test>',
      attachments: [{ filename: 'a.pdf', content_type: 'application/pdf', size: 1200 }],
    });
    const first = (await (await post(path!, mail, signed(secret!, 'hook-1', mail))).json()) as {
      task_id: string;
      run_id: string;
    };
    expect(await waitForRunEnd(first.run_id)).toBe('completed');
    expect(await firstUserMessage(first.task_id)).toBe('Email from ann@example.test: Invoice\n\nPlease check.');
    // The parse service retries with a new webhook-id: the message id still names the same event.
    const retried = (await (await post(path!, mail, signed(secret!, 'hook-2', mail))).json()) as {
      run_id: string;
      duplicate: boolean;
    };
    expect(retried).toMatchObject({ run_id: first.run_id, duplicate: true });
    const notMail = JSON.stringify({ hello: 1 });
    expect((await post(path!, notMail, signed(secret!, 'hook-3', notMail))).status).toBe(400);
  });
});

describe('cron flows on Temporal Schedules', () => {
  it('creates a schedule that starts runs, updates it when the flow changes, and pauses it when disabled', async () => {
    const user = await ownerEmail();
    const flow = {
      name: 'ticker',
      kind: 'cron',
      agent: 'agent',
      user,
      message: 'Tick at {{scheduled_at}}',
      cron: { schedule: { every_seconds: 2 }, overlap: 'allow_all' },
    };
    const id = (await apply({ flows: [flow] })).flows[0]!.id;
    const client = await temporalClient();
    const handle = client.schedule.getHandle(flowScheduleId(id));
    const runs = await eventually(
      'two ticks to start runs',
      async () => {
        const ticks = await testDb().flowEvent.findMany({ where: { flowId: id } });
        expect(ticks.filter((r) => r.runId).length).toBeGreaterThanOrEqual(2);
        return ticks;
      },
      { interval: 500 },
    );
    const runIds = runs.map((r) => r.runId).filter((r): r is string => r !== null);
    expect(await waitForRunEnd(runIds[0]!)).toBe('completed');
    await expectReplays(runs.find((r) => r.runId === runIds[0])!.externalId, 'flow-tick');
    expect((await handle.describe()).spec).toMatchObject({ intervals: [{ every: 2000 }] });

    await apply({ flows: [{ ...flow, cron: { schedule: '0 9 * * 1-5', timezone: 'Europe/Berlin' } }] });
    await eventually(
      'the schedule to follow the new calendar',
      async () =>
        expect((await handle.describe()).spec).toMatchObject({
          calendars: expect.any(Array),
          timezone: 'Europe/Berlin',
        }),
      { timeout: 15_000 },
    );
    await apply({ flows: [{ ...flow, cron: { schedule: '0 9 * * 1-5', timezone: 'Europe/Berlin' }, enabled: false }] });
    await eventually('the schedule to pause', async () => expect((await handle.describe()).state.paused).toBe(true), {
      timeout: 15_000,
    });
  }, 60_000);
});

describe('inbound flows: an outside sender acts as a guest unless the flow grants more', () => {
  it("the sender's run gets a guest's tools (no agent memory); sender_access: user gives the flow user's", async () => {
    const user = await ownerEmail();
    const org = await apply({
      flows: [
        { name: 'outside', kind: 'webhook', agent: 'agent', user, message: '{{text}}' },
        { name: 'trusted', kind: 'webhook', agent: 'agent', user, message: '{{text}}', sender_access: 'user' },
      ],
    });
    const send = async (name: string, content: string) => {
      const flow = org.flows.find((f) => f.name === name)!;
      const body = JSON.stringify({ text: `/tool save_memory {"content":"${content}"}` });
      const started = (await (await post(flow.path!, body, signed(flow.secret!, `evt_${content}`, body))).json()) as {
        run_id: string;
      };
      expect(await waitForRunEnd(started.run_id)).toBe('completed');
      return started.run_id;
    };
    const tag = Date.now().toString(36);
    const outsideRun = await send('outside', `outside-${tag}`);
    const toolResult = await testDb().message.findFirstOrThrow({ where: { runId: outsideRun, role: 'tool' } });
    expect(toolResult.content).toMatch(/not available in a guest's run/);
    expect(await testDb().memory.count({ where: { content: `outside-${tag}` } })).toBe(0);

    await send('trusted', `trusted-${tag}`);
    expect(await testDb().memory.count({ where: { content: `trusted-${tag}` } })).toBe(1);
  }, 60_000);
});

describe('messaging flows (Slack Events API)', () => {
  const slack = {
    server: undefined as Server | undefined,
    posts: [] as Record<string, unknown>[],
    auth: [] as string[],
  };
  const signingSecret = 'slack-signing-secret-for-tests';
  let path: string;

  beforeAll(async () => {
    slack.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        slack.posts.push({ url: req.url, ...(JSON.parse(body) as object) });
        slack.auth.push(String(req.headers.authorization));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: true }));
      });
    });
    // The operator's SLACK_API_URL (test/global-setup.ts): the only place replies go.
    await new Promise<void>((r) => slack.server!.listen(inject('slackApiPort'), '127.0.0.1', r));
    const put = await call('PUT', '/api/admin/secrets/SLACK_BOT', {
      token: owner.token,
      body: { value: 'xoxb-org-token' },
    });
    expect(put.status).toBe(200);
    const messaging = { bot_token_secret: 'SLACK_BOT' };
    const flow = {
      name: 'slack',
      kind: 'messaging',
      agent: 'support',
      user: await ownerEmail(),
      message: '{{event.text}}',
      task_key: '{{thread_ts}}',
      secret: signingSecret,
      messaging,
    };
    await expect(apply({ agents: [{ name: 'support', customer_facing: false }], flows: [flow] })).rejects.toThrow(
      /not customer-facing/,
    );
    path = (await apply({ agents: [{ name: 'support', customer_facing: true }], flows: [flow] })).flows[0]!.path!;
  });

  afterAll(async () => {
    await new Promise<void>((r) => (slack.server ? slack.server.close(() => r()) : r()));
  });

  function slackPost(payload: object, secret = signingSecret): Promise<Response> {
    const body = JSON.stringify(payload);
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
    return post(path, body, { 'X-Slack-Request-Timestamp': ts, 'X-Slack-Signature': signature });
  }

  const message = (eventId: string, text: string, extra: object = {}) => ({
    type: 'event_callback',
    event_id: eventId,
    event: { type: 'message', text, user: 'U1', channel: 'C1', ts: '1700000000.000100', ...extra },
  });

  it('answers the url_verification challenge, runs one task per thread, and posts each answer back in the thread', async () => {
    const challenge = await slackPost({ type: 'url_verification', challenge: 'abc123' });
    expect(challenge.status).toBe(200);
    expect(await challenge.json()).toEqual({ challenge: 'abc123' });

    const first = (await (await slackPost(message('Ev1', 'Hello bot'))).json()) as { task_id: string; run_id: string };
    expect(await waitForRunEnd(first.run_id)).toBe('completed');
    await eventually('the answer posted to Slack', () => expect(slack.posts).toHaveLength(1), { timeout: 15_000 });
    const answer = await testDb().message.findFirstOrThrow({
      where: { runId: first.run_id, role: 'assistant' },
      orderBy: { position: 'desc' },
    });
    expect(slack.posts[0]).toMatchObject({
      url: '/api/chat.postMessage',
      channel: 'C1',
      thread_ts: '1700000000.000100',
      text: answer.content,
    });
    expect(slack.auth[0]).toBe('Bearer xoxb-org-token');
    const flowId = path.split('/')[4]!;
    const replyId = `flow-reply-${createHash('sha256').update(`${flowId}\nEv1`).digest('hex').slice(0, 40)}`;
    await expectReplays(replyId, 'flow-reply');
    // The flow's org is the reply's fairness key, as for the org's runs.
    const { orgId } = await testDb().flow.findUniqueOrThrow({ where: { id: flowId } });
    expect((await (await temporalClient()).workflow.getHandle(replyId).describe()).priority).toMatchObject({
      fairnessKey: orgId,
      priorityKey: runPriorityKeys.flow,
    });

    const reply = (await (
      await slackPost(message('Ev2', 'And again', { ts: '1700000001.000200', thread_ts: '1700000000.000100' }))
    ).json()) as { task_id: string; run_id: string };
    expect(reply.task_id).toBe(first.task_id);
    expect(await waitForRunEnd(reply.run_id)).toBe('completed');
    await eventually('the second answer posted to Slack', () => expect(slack.posts).toHaveLength(2), {
      timeout: 15_000,
    });

    expect(await (await slackPost(message('Ev3', 'beep', { bot_id: 'B1' }))).json()).toMatchObject({
      run_id: null,
      ignored: expect.any(String),
    });
    expect((await slackPost(message('Ev4', 'forged'), 'another-secret-entirely')).status).toBe(401);
    expect((await slackPost(message('Ev1', 'Hello bot'))).status).toBe(202); // a retried delivery: the same run, no new post
    await new Promise((r) => setTimeout(r, 1000)); // nothing to wait for: a retried delivery must start no reply at all
    expect(slack.posts).toHaveLength(2);
  }, 60_000);

  it('a flow stored with a worker variable and its own Slack address (the old fields) sends nothing, anywhere', async () => {
    const attacker = { requests: [] as string[] };
    const server = createServer((req, res) => {
      attacker.requests.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const flowId = path.split('/')[4]!;
    const before = await testDb().flow.findUniqueOrThrow({ where: { id: flowId } });
    try {
      const attackerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
      await testDb().flow.update({
        where: { id: flowId },
        data: { config: { bot_token_env: 'JWT_SECRET', api_url: attackerUrl } },
      });
      const postsBefore = slack.posts.length;
      const started = (await (await slackPost(message('Ev5', 'Hello'))).json()) as { run_id: string };
      expect(await waitForRunEnd(started.run_id)).toBe('completed');
      const reply = (await temporalClient()).workflow.getHandle(
        `flow-reply-${createHash('sha256').update(`${flowId}\nEv5`).digest('hex').slice(0, 40)}`,
      );
      await eventually('the reply workflow to fail', async () =>
        expect((await reply.describe()).status.name).toBe('FAILED'),
      );
      const failure = await reply.result().catch((err: Error) => err);
      // The workflow failed because its activity did, because the config names no bot_token_secret.
      expect(String((failure as Error & { cause?: Error & { cause?: Error } }).cause?.cause?.message)).toMatch(
        /bot_token_secret is not set/,
      );
      expect(attacker.requests).toEqual([]);
      expect(slack.posts).toHaveLength(postsBefore);
    } finally {
      await testDb().flow.update({ where: { id: flowId }, data: { config: before.config ?? {} } });
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);

  it('refuses with 400 at request time when the agent is no longer customer-facing', async () => {
    await apply({ agents: [{ name: 'support', customer_facing: false }] });
    try {
      const res = await slackPost(message('Ev9', 'Hi'));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/not customer-facing/);
    } finally {
      await apply({ agents: [{ name: 'support', customer_facing: true }] });
    }
  });

  it('admin apply checks flows: settings of the kind, a known agent and user, no kind change, a bot token the org has', async () => {
    const user = await ownerEmail();
    const slack = (messaging: object) =>
      apply({
        flows: [
          { name: 'bad', kind: 'messaging', agent: 'support', user, message: 'x', secret: 's'.repeat(16), messaging },
        ],
      });
    await expect(slack({ bot_token_secret: 'NO_SUCH_SECRET' })).rejects.toThrow(/has no secret named NO_SUCH_SECRET/);
    await expect(slack({ bot_token_env: 'JWT_SECRET' })).rejects.toThrow(AdminError);
    await expect(slack({ bot_token_secret: 'SLACK_BOT', api_url: 'http://127.0.0.1:1/api' })).rejects.toThrow(
      AdminError,
    );
    await expect(apply({ flows: [{ name: 'bad', kind: 'cron', agent: 'agent', user, message: 'x' }] })).rejects.toThrow(
      AdminError,
    );
    await expect(
      apply({ flows: [{ name: 'bad', kind: 'webhook', agent: 'nobody', user, message: 'x' }] }),
    ).rejects.toThrow(/no agent named/);
    await expect(
      apply({ flows: [{ name: 'bad', kind: 'webhook', agent: 'agent', user: 'ghost@example.test', message: 'x' }] }),
    ).rejects.toThrow(/no user/);
    await expect(
      apply({ flows: [{ name: 'slack', kind: 'webhook', agent: 'agent', user, message: 'x' }] }),
    ).rejects.toThrow(/kind cannot change/);
  });
});
