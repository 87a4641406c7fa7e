import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../src/activities/webhooks.ts';
import { loadConfig } from '../../src/config.ts';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { AdminError } from '../../src/admin/errors.ts';
import { call, exchange, userMessage } from '../support/http.ts';
import { webhookWorkflowId } from '../../src/shared/webhook-delivery-types.ts';
import { eventually } from '../support/eventually.ts';
import { expectReplays, startBackgroundRun, temporalClient, waitForPending, type Caller } from '../support/runs.ts';
import { runPriorityKeys } from '../../src/shared/run-priority.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

interface Received {
  id: string;
  type: string;
  data: { run_id: string; task_id: string; agent_id: string; org_id: string; event: Record<string, unknown> };
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request's Standard Webhooks signature and
 * keeps each `webhook-id` once, as the spec tells receivers to. `answer` decides its HTTP status.
 */
class Receiver {
  readonly requests: { id: string; status: number }[] = [];
  readonly kept = new Map<string, Received>();
  answer: () => number = () => 200;
  private server: Server | undefined;
  port = 0;
  secret = '';

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const status = this.answer();
        const id = String(req.headers['webhook-id']);
        this.requests.push({ id, status });
        if (status === 200) {
          const payload = new Webhook(this.secret).verify(body, headersOf(req.headers)) as Omit<Received, 'id'>;
          if (!this.kept.has(id)) this.kept.set(id, { id, ...payload });
        }
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    this.server = undefined;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  waitFor(match: (r: Received) => boolean, timeoutMs = 30_000): Promise<Received> {
    return eventually(
      'a matching webhook',
      () => {
        const found = [...this.kept.values()].find(match);
        if (!found) throw new Error(`kept: ${JSON.stringify([...this.kept.values()].map((r) => r.type))}`);
        return found;
      },
      { timeout: timeoutMs, interval: 100 },
    );
  }
}

const headersOf = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

async function subscribe(tenant: Tenant, hooks: Record<string, unknown>[]) {
  const org = await testDb().org.findUniqueOrThrow({ where: { id: tenant.orgId } });
  return applyFile(testDb(), parseApplyFile({ orgs: [{ name: org.name, webhooks: hooks }] }));
}

let tenant: Tenant;
let owner: Caller;
let member: Caller;
const receiver = new Receiver();
const other = new Receiver();

beforeAll(async () => {
  tenant = await createTenant();
  owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
  await receiver.start();
  await other.start();
  const applied = await subscribe(tenant, [
    { name: 'all', url: receiver.url },
    { name: 'private-agent-only', url: other.url, agent: 'private', events: ['run.completed'] },
  ]);
  const hooks = applied.orgs[0]!.webhooks;
  receiver.secret = hooks.find((h) => h.name === 'all')!.secret!;
  other.secret = hooks.find((h) => h.name === 'private-agent-only')!.secret!;
  expect(receiver.secret).toMatch(/^whsec_/);
});

afterAll(async () => {
  await receiver.stop();
  await other.stop();
});

const get = (path: string, who = owner) => call('GET', path, { token: who.token });

describe('outbound run webhooks (Standard Webhooks)', () => {
  it('sends run.completed, run.awaiting_input, approval.requested and run.cancelled, signed, once each', async () => {
    const done = await startBackgroundRun(member, userMessage('Hello'));
    const completed = await receiver.waitFor((r) => r.type === 'run.completed' && r.data.run_id === done.runId);
    expect(completed.data).toMatchObject({
      task_id: done.taskId,
      agent_id: tenant.agentId,
      org_id: tenant.orgId,
      event: { type: 'RUN_FINISHED' },
    });

    const asking = await startBackgroundRun(
      member,
      userMessage('/tool request_user_input {"input_type":"text","prompt":"Name?"}'),
    );
    await waitForPending(member, asking.taskId);
    const awaiting = await receiver.waitFor((r) => r.type === 'run.awaiting_input' && r.data.run_id === asking.runId);
    expect(awaiting.data.event).toMatchObject({ name: 'USER_INPUT_REQUIRED', data: { input_type: 'text' } });
    await call('POST', `/api/tasks/${asking.taskId}/cancel`, {
      token: member.token,
      agentId: member.agentId,
      body: {},
    });
    await receiver.waitFor((r) => r.type === 'run.cancelled' && r.data.run_id === asking.runId);

    const gated = await startBackgroundRun(owner, userMessage('/tool run_command {"command":"echo hi"}'));
    const approval = await receiver.waitFor((r) => r.type === 'approval.requested' && r.data.run_id === gated.runId);
    expect(approval.data.event).toMatchObject({ data: { input_type: 'action_approval' } });
    await call('POST', `/api/tasks/${gated.taskId}/cancel`, { token: owner.token, agentId: owner.agentId, body: {} });
    await receiver.waitFor((r) => r.type === 'run.cancelled' && r.data.run_id === gated.runId);

    // Each event reached the receiver exactly once, and the other agent's subscription got none of them.
    const ids = receiver.requests.filter((r) => r.status === 200).map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(other.requests).toEqual([]);
  });

  it('sends run.failed for a run that fails', async () => {
    const failing = await createTenant({
      provider: 'openai-compatible',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
      api_key_env: 'ARS_TEST_UNSET_KEY',
    });
    const hooks = (
      await subscribe(failing, [
        { name: 'failures', url: receiver.url, events: ['run.failed'], secret: receiver.secret },
      ])
    ).orgs[0]!.webhooks;
    expect(hooks[0]!.secret).toBeUndefined(); // a given secret is not echoed
    const run = await startBackgroundRun(
      { token: await exchange(failing.keys.owner), agentId: failing.agentId },
      userMessage('hi'),
    );
    const failed = await receiver.waitFor((r) => r.type === 'run.failed' && r.data.run_id === run.runId);
    expect(failed.data.event).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_CONFIG_ERROR' });
  });

  it('keeps retrying while the receiver is down, then delivers once; attempts are logged; a re-send carries the same webhook-id', async () => {
    const port = receiver.port;
    await receiver.stop(); // connection refused
    const run = await startBackgroundRun(member, userMessage('While you were out'));
    await eventually('an attempt refused while the receiver is down', async () => {
      const refused = await testDb().webhookAttempt.count({
        where: { delivery: { runId: run.runId, eventType: 'run.completed' }, statusCode: null },
      });
      expect(refused).toBeGreaterThanOrEqual(1);
    });
    await receiver.start(port);
    let failing = 2;
    receiver.answer = () => (failing-- > 0 ? 503 : 200);
    const got = await receiver.waitFor((r) => r.type === 'run.completed' && r.data.run_id === run.runId);
    receiver.answer = () => 200;
    expect(receiver.requests.filter((r) => r.id === got.id).map((r) => r.status)).toEqual([503, 503, 200]);
    await expectReplays(webhookWorkflowId(got.id, 0), 'webhook-delivered-after-retries');
    // The delivery's org is its workflow's fairness key: one org's flood of deliveries does not hold up another's.
    const { orgId } = await testDb().webhookDelivery.findUniqueOrThrow({ where: { id: got.id } });
    const workflow = await (await temporalClient()).workflow.getHandle(webhookWorkflowId(got.id, 0)).describe();
    expect(workflow.priority).toMatchObject({ fairnessKey: orgId, priorityKey: runPriorityKeys.background });

    const detail = (await (await get(`/api/webhooks/deliveries/${got.id}`)).json()) as {
      status: string;
      attempts: number;
      attempt_log: { resend: number; attempt: number; status_code: number | null; error: string | null }[];
    };
    expect(detail.status).toBe('delivered');
    const log = detail.attempt_log;
    expect(log.filter((a) => a.status_code === null).length).toBeGreaterThanOrEqual(1); // refused while down
    expect(log.slice(-3).map((a) => a.status_code)).toEqual([503, 503, 200]);
    expect(log.map((a) => a.attempt)).toEqual(log.map((_, i) => i + 1));
    expect(detail.attempts).toBe(log.length);

    const listed = (await (await get('/api/webhooks/deliveries?status=delivered&limit=200')).json()) as {
      deliveries: { id: string }[];
    };
    expect(listed.deliveries.map((d) => d.id)).toContain(got.id);

    const before = receiver.requests.length;
    const resent = await call('POST', `/api/webhooks/deliveries/${got.id}/resend`, { token: owner.token });
    expect(resent.status).toBe(202);
    expect(await resent.json()).toEqual({ delivery_id: got.id, resend: 1, status: 'pending' });
    await eventually('the re-send', () => expect(receiver.requests.slice(before).map((r) => r.id)).toEqual([got.id]), {
      timeout: 15_000,
    });
    expect(receiver.kept.size).toBe(new Set(receiver.requests.filter((r) => r.status === 200).map((r) => r.id)).size);
  }, 60_000);

  it('a refused target fails at once: the address policy would refuse every later attempt too', async () => {
    const sub = await testDb().webhookSubscription.findFirstOrThrow({ where: { orgId: tenant.orgId, name: 'all' } });
    const id = `msg_refused_${Date.now()}`;
    // Dispatched already, so the api leaves it alone: this test runs the one attempt itself.
    await testDb().webhookDelivery.create({
      data: {
        id,
        subscriptionId: sub.id,
        orgId: tenant.orgId,
        eventType: 'run.completed',
        payload: {},
        dispatchedAt: new Date(),
      },
    });
    const config = loadConfig({
      ...process.env,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'ars-refuse-')),
      OUTBOUND_PRIVATE_TARGETS: 'refuse',
    });
    const { sendWebhook } = createWebhookActivities({
      db: testDb(),
      config,
      logger: pino({ level: 'silent' }),
      env: {},
      deltaFlushMs: 25,
    });
    const before = receiver.requests.length;
    const retry = { initialMs: 100, maxMs: 100, windowMs: 60_000, timeoutMs: 5000 };
    const failure = await new MockActivityEnvironment()
      .run(sendWebhook, { deliveryId: id, resend: 0, retry })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'WebhookTargetRefused',
      nonRetryable: true,
      message: expect.stringMatching(/not a public address: refused/),
    });
    expect(receiver.requests.length).toBe(before);
    expect(await testDb().webhookAttempt.count({ where: { deliveryId: id } })).toBe(1);
  });

  it('is for owners and admins only; another org sees none of it', async () => {
    expect((await get('/api/webhooks', member)).status).toBe(403);
    expect((await get('/api/webhooks/deliveries', member)).status).toBe(403);
    const list = (await (await get('/api/webhooks')).json()) as { webhooks: { name: string; enabled: boolean }[] };
    expect(list.webhooks.map((w) => w.name)).toEqual(['all', 'private-agent-only']);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    const stranger = await createTenant();
    const strangerToken = await exchange(stranger.keys.owner);
    const some = (await (await get('/api/webhooks/deliveries?limit=1')).json()) as { deliveries: { id: string }[] };
    expect(some.deliveries).toHaveLength(1);
    expect(
      (await call('GET', `/api/webhooks/deliveries/${some.deliveries[0]!.id}`, { token: strangerToken })).status,
    ).toBe(404);
    expect(
      (await call('POST', `/api/webhooks/deliveries/${some.deliveries[0]!.id}/resend`, { token: strangerToken }))
        .status,
    ).toBe(404);
  });

  it('admin apply refuses a non-http URL, an unknown event or agent, and a malformed secret; a disabled subscription gets nothing', async () => {
    for (const hook of [
      { name: 'x', url: 'ftp://example.test/' },
      { name: 'x', url: receiver.url, events: ['run.exploded'] },
      { name: 'x', url: receiver.url, secret: 'not-a-secret' },
    ]) {
      await expect(subscribe(tenant, [hook])).rejects.toThrow(AdminError);
    }
    await expect(subscribe(tenant, [{ name: 'x', url: receiver.url, agent: 'nobody' }])).rejects.toThrow(
      /no agent named "nobody"/,
    );

    const quiet = new Receiver();
    await quiet.start();
    try {
      await subscribe(tenant, [{ name: 'quiet', url: quiet.url, disabled: true }]);
      const run = await startBackgroundRun(member, userMessage('Nobody listens'));
      await receiver
        .waitFor((r) => r.type === 'run.completed' && r.data.run_id === run.runId)
        .catch(async (err: Error) => {
          // Once in CI this waited out its 30 s with nothing logged: say where the run and its deliveries were.
          const [state, deliveries] = await Promise.all([
            testDb().run.findUnique({ where: { id: run.runId }, select: { status: true, finishedAt: true } }),
            testDb().webhookDelivery.findMany({
              where: { runId: run.runId },
              select: { eventType: true, status: true, attempts: true, dispatchedAt: true, lastError: true },
            }),
          ]);
          throw new Error(`${err.message}; run ${JSON.stringify(state)}; its deliveries ${JSON.stringify(deliveries)}`);
        });
      await new Promise((r) => setTimeout(r, 1000)); // nothing to wait for: a disabled hook leaves no trace when it works
      expect(quiet.requests).toEqual([]);
    } finally {
      await quiet.stop();
    }
  });
});
