/**
 * The widget gateway over HTTP on the real stack: widget keys from `admin apply`, visitor
 * sessions and their origin checks, CORS, runs, streams, messages and human input of a
 * visitor's own tasks, and the separation of visitor tokens from normal tokens.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createTokenService } from '../../src/auth/tokens.ts';
import { loadConfig } from '../../src/config.ts';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { grantAccess } from '../../src/admin/agents.ts';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { AdminError } from '../../src/admin/errors.ts';
import { listOrgs } from '../../src/admin/orgs.ts';
import { findUser } from '../../src/db/users.ts';
import { eventually } from '../support/eventually.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { expectOneTerminal, types } from '../support/runs.ts';
import { testDb } from '../support/tenant.ts';
import { createWidgetTenant, widgetCall, widgetSession, type WidgetTenant } from '../support/widget.ts';

const SITE = 'http://shop.example.test:8080';
const OTHER = 'http://evil.example.test';
const ask = (args: Record<string, unknown>) =>
  userMessage(`Please help.\n/tool request_user_input ${JSON.stringify(args)}`);

let tenant: WidgetTenant;

beforeAll(async () => {
  tenant = await createWidgetTenant([SITE]);
});

/** Reads a widget SSE answer to its end; frames without heartbeats. */
async function streamed(res: Response) {
  expect(res.status, res.status === 200 ? '' : await res.clone().text()).toBe(200);
  return withoutHeartbeats(await readSse(res));
}

describe('widget keys through admin apply', () => {
  it('refuses a key for an agent that is not customer-facing, and creates nothing', async () => {
    const file = parseApplyFile({
      orgs: [
        {
          name: `${tenant.orgName}`,
          agents: [{ name: 'internal' }],
          widget_keys: [{ name: 'bad', agent: 'internal', origins: [SITE] }],
        },
      ],
    });
    await expect(applyFile(testDb(), file)).rejects.toThrow(AdminError);
    await expect(applyFile(testDb(), file)).rejects.toThrow(/not customer-facing/);
  });

  it('refuses origins that are not bare origins', () => {
    expect(() =>
      parseApplyFile({
        orgs: [{ name: 'x', widget_keys: [{ name: 'k', agent: 'a', origins: ['https://shop.example.com/page'] }] }],
      }),
    ).toThrow(/must be an origin/);
  });

  it('applying the same file again changes nothing and shows no key', async () => {
    const again = await applyFile(
      testDb(),
      parseApplyFile({
        orgs: [{ name: tenant.orgName, widget_keys: [{ name: 'site', agent: 'support', origins: [SITE] }] }],
      }),
    );
    expect(again.changes).toEqual([]);
    expect(again.orgs[0]!.widget_keys[0]).toMatchObject({ id: tenant.keyId, revoked: false });
    expect(again.orgs[0]!.widget_keys[0]!.key).toBeUndefined();
  });
});

describe('POST /api/v1/widget/session', () => {
  it('gives an allowed origin a visitor token, with CORS headers for that origin only', async () => {
    const res = await widgetCall('POST', '/session', { origin: SITE, body: { widget_key: tenant.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
    const body = (await res.json()) as {
      visitor_token: string;
      visitor_id: string;
      expires_at: string;
      agent: { id: string };
    };
    expect(body.agent.id).toBe(tenant.agentId);
    const lifetime = Date.parse(body.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    const visitor = await findUser(testDb(), body.visitor_id);
    expect(visitor).toMatchObject({ orgId: tenant.orgId, role: 'guest' });
  });

  it('refuses another origin, and a request without Origin, with 403 and no CORS headers', async () => {
    for (const origin of [OTHER, undefined]) {
      const res = await widgetCall('POST', '/session', { origin, body: { widget_key: tenant.key } });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await res.json()) as { detail: string }).detail).toMatch(/Origin/);
    }
  });

  it('refuses unknown keys with 401', async () => {
    const res = await widgetCall('POST', '/session', { origin: SITE, body: { widget_key: 'ars_pub_nope' } });
    expect(res.status).toBe(401);
  });

  it('keeps a returning visitor (its earlier token) the same visitor; a token of another key makes a new one', async () => {
    const first = await widgetSession(tenant.key, SITE);
    const again = await widgetSession(tenant.key, SITE, first.visitor_token);
    expect(again.visitor_id).toBe(first.visitor_id);
    const other = await createWidgetTenant([SITE]);
    const foreign = await widgetSession(other.key, SITE, first.visitor_token);
    expect(foreign.visitor_id).not.toBe(first.visitor_id);
  });

  it('tells an expired visitor token apart (401 the page can read), and renews it for the same visitor', async () => {
    const first = await widgetSession(tenant.key, SITE);
    const tokens = createTokenService(loadConfig({ JWT_SECRET: inject('jwtSecret') }).jwt);
    const expired = await tokens.issue(
      {
        userId: first.visitor_id,
        orgId: tenant.orgId,
        role: 'guest',
        apiKeyId: '',
        widget: { keyId: tenant.keyId, agentId: tenant.agentId },
      },
      new Date(Date.now() - 7200_000),
      3600,
    );
    const refused = await widgetCall('GET', '/tasks/task_unknown/messages', { origin: SITE, token: expired.token });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/expired/);
    expect((await widgetSession(tenant.key, SITE, expired.token)).visitor_id).toBe(first.visitor_id);
    // A token that does not verify is no identity: a new visitor, not a broken chat.
    const garbled = await widgetSession(tenant.key, SITE, `${first.visitor_token}x`);
    expect(garbled.visitor_id).not.toBe(first.visitor_id);
  });

  it('answers CORS preflights for origins a widget key allows, and for no other', async () => {
    const preflight = (origin: string) =>
      widgetCall('OPTIONS', '/run', {
        origin,
        headers: {
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      });
    const ok = await preflight(SITE);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const refused = await preflight(OTHER);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('widget runs', () => {
  it('streams RUN_STARTED … RUN_FINISHED, and the visitor reads the task’s messages', async () => {
    const session = await widgetSession(tenant.key, SITE);
    const res = await widgetCall('POST', '/run', {
      origin: SITE,
      token: session.visitor_token,
      body: userMessage('Hello from the widget'),
    });
    expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Task-Id/);
    const taskId = res.headers.get('x-task-id')!;
    const frames = await streamed(res);
    expect(frames[0]!.data.type).toBe('RUN_STARTED');
    expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(types(frames)).toContain('TEXT_MESSAGE_CONTENT');

    const messages = await widgetCall('GET', `/tasks/${taskId}/messages`, {
      origin: SITE,
      token: session.visitor_token,
    });
    expect(messages.status).toBe(200);
    const list = (await messages.json()) as { messages: { role: string; content: string }[] };
    expect(list.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(list.messages[0]!.content).toBe('Hello from the widget');

    // An admin finds the visitor's run on the runs list by its source; a visitor token may not list runs.
    const runs = (await (
      await call('GET', '/api/runs?source=widget', { token: await exchange(tenant.ownerKey) })
    ).json()) as { runs: { task_id: string; source: { kind: string }; user: { visitor: boolean } }[] };
    expect(runs.runs.find((r) => r.task_id === taskId)).toMatchObject({
      source: { kind: 'widget' },
      user: { visitor: true },
    });
    expect((await call('GET', '/api/runs', { token: session.visitor_token })).status).toBe(403);
  });

  it('resumes a task stream after Last-Event-ID', async () => {
    const session = await widgetSession(tenant.key, SITE);
    const res = await widgetCall('POST', '/run', {
      origin: SITE,
      token: session.visitor_token,
      body: userMessage('Resume me'),
    });
    const taskId = res.headers.get('x-task-id')!;
    const frames = (await streamed(res)).filter((f) => f.id);
    const cut = frames[1]!;
    const resumed = await streamed(
      await widgetCall('GET', `/tasks/${taskId}/stream`, {
        origin: SITE,
        token: session.visitor_token,
        headers: { 'Last-Event-ID': cut.id! },
      }),
    );
    expect(resumed.map((f) => f.id)).toEqual(frames.slice(2).map((f) => f.id));
  });

  it('takes a human-input answer through the widget input path and finishes the run', async () => {
    const session = await widgetSession(tenant.key, SITE);
    const res = await widgetCall('POST', '/run', {
      origin: SITE,
      token: session.visitor_token,
      body: ask({ input_type: 'choice', prompt: 'Pick', choices: ['red', 'blue'] }),
    });
    const taskId = res.headers.get('x-task-id')!;
    let answered: Promise<Response> | undefined;
    const frames = withoutHeartbeats(
      await readSse(res, (frame) => {
        if (frame.data.type !== 'CUSTOM' || frame.data.name !== 'USER_INPUT_REQUIRED') return;
        const req = frame.data.data as { request_id: string; run_id: string };
        answered = widgetCall('POST', `/tasks/${taskId}/input`, {
          origin: SITE,
          token: session.visitor_token,
          body: { request_id: req.request_id, run_id: req.run_id, input_type: 'choice', value: 'blue' },
        });
      }),
    );
    expect((await answered!).status).toBe(200);
    const result = frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: 'answered', value: 'blue' });
    expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

describe('who may use what', () => {
  it('a visitor cannot read, stream or answer another visitor’s task', async () => {
    const a = await widgetSession(tenant.key, SITE);
    const b = await widgetSession(tenant.key, SITE);
    const res = await widgetCall('POST', '/run', {
      origin: SITE,
      token: a.visitor_token,
      body: { ...userMessage('mine'), stream: false },
    });
    expect(res.status).toBe(202);
    const taskId = ((await res.json()) as { task_id: string }).task_id;
    for (const path of [`/tasks/${taskId}/messages`, `/tasks/${taskId}/stream`, `/tasks/${taskId}/pending-input`]) {
      const other = await widgetCall('GET', path, { origin: SITE, token: b.visitor_token });
      expect(other.status, path).toBe(403);
    }
    const continued = await widgetCall('POST', '/run', {
      origin: SITE,
      token: b.visitor_token,
      body: { ...userMessage('yours?'), task_id: taskId },
    });
    expect(continued.status).toBe(403);
  });

  it("a visitor's run is a guest's: the agent's memory and workspace tools are refused", async () => {
    const session = await widgetSession(tenant.key, SITE);
    const content = ['/tool recall_memory {"query":"secret"}', '/tool list_files {}'].join('\n');
    const frames = await streamed(
      await widgetCall('POST', '/run', { origin: SITE, token: session.visitor_token, body: userMessage(content) }),
    );
    const results = frames
      .filter((f) => f.data.type === 'TOOL_CALL_RESULT')
      .map((f) => JSON.parse(f.data.content as string) as { error?: { code: string } });
    expect(results).toHaveLength(2);
    for (const r of results) expect(r.error?.code).toBe('FORBIDDEN_FOR_GUESTS');
    expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('a visitor token is refused on the normal api, and a normal token on the widget paths', async () => {
    const session = await widgetSession(tenant.key, SITE);
    const onApi = await call('GET', '/api/tasks', { token: session.visitor_token, agentId: tenant.agentId });
    expect(onApi.status).toBe(403);
    expect(((await onApi.json()) as { detail: string }).detail).toMatch(/widget/);
    const jwt = await exchange(tenant.ownerKey);
    const onWidget = await widgetCall('POST', '/run', { origin: SITE, token: jwt, body: userMessage('hi') });
    expect(onWidget.status).toBe(401);
  });

  it('a visitor token from an allowed origin is refused from another origin', async () => {
    const session = await widgetSession(tenant.key, SITE);
    const res = await widgetCall('POST', '/run', {
      origin: OTHER,
      token: session.visitor_token,
      body: userMessage('hi'),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a revoked key (admin apply revoked: true) ends its sessions and visitor tokens', async () => {
    const own = await createWidgetTenant([SITE]);
    const session = await widgetSession(own.key, SITE);
    const applied = await applyFile(
      testDb(),
      parseApplyFile({
        orgs: [
          { name: own.orgName, widget_keys: [{ name: 'site', agent: 'support', origins: [SITE], revoked: true }] },
        ],
      }),
    );
    expect(applied.changes.join('\n')).toMatch(/revoked widget key "site"/);
    expect((await widgetCall('POST', '/session', { origin: SITE, body: { widget_key: own.key } })).status).toBe(401);
    expect(
      (await widgetCall('POST', '/run', { origin: SITE, token: session.visitor_token, body: userMessage('hi') }))
        .status,
    ).toBe(401);
  });

  it('an agent made not customer-facing later is refused with 400 at request time', async () => {
    const own = await createWidgetTenant([SITE]);
    const session = await widgetSession(own.key, SITE);
    await applyFile(
      testDb(),
      parseApplyFile({ orgs: [{ name: own.orgName, agents: [{ name: 'support', customer_facing: false }] }] }),
    );
    const run = await widgetCall('POST', '/run', {
      origin: SITE,
      token: session.visitor_token,
      body: userMessage('hi'),
    });
    expect(run.status).toBe(400);
    expect(((await run.json()) as { detail: string }).detail).toMatch(/not customer-facing/);
    const fresh = await widgetCall('POST', '/session', { origin: SITE, body: { widget_key: own.key } });
    expect(fresh.status).toBe(400);
  });
});

describe('visitors and what a widget key may spend', () => {
  it('a visitor is no member of the org: not listed, not in the org document; an idle one expires with its tasks', async () => {
    const own = await createWidgetTenant([SITE]);
    const session = await widgetSession(own.key, SITE);
    const run = await widgetCall('POST', '/run', {
      origin: SITE,
      token: session.visitor_token,
      body: { ...userMessage('hi'), stream: false },
    });
    expect(run.status).toBe(202);
    const { task_id: taskId } = (await run.json()) as { task_id: string };
    const ownerToken = await exchange(own.ownerKey);
    const members = (await (await call('GET', '/api/admin/members', { token: ownerToken })).json()) as {
      members: { id: string }[];
    };
    expect(members.members.map((m) => m.id)).not.toContain(session.visitor_id);
    expect(await (await call('GET', '/api/admin/org', { token: ownerToken })).text()).not.toContain('widget.invalid');

    // Idle past its expiry: the next new visitor's session deletes it with its tasks, and its token no longer renews it.
    await eventually('the run to complete', async () =>
      expect((await testDb().run.findFirstOrThrow({ where: { taskId } })).status).toBe('completed'),
    );
    await testDb().user.update({ where: { id: session.visitor_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const renewed = await widgetSession(own.key, SITE, session.visitor_token);
    expect(renewed.visitor_id).not.toBe(session.visitor_id);
    expect(await findUser(testDb(), session.visitor_id)).toBeNull();
    expect(await testDb().task.findUnique({ where: { id: taskId } })).toBeNull();
    // A returning visitor that has not expired keeps its identity, and its expiry moves on.
    const again = await widgetSession(own.key, SITE, renewed.visitor_token);
    expect(again.visitor_id).toBe(renewed.visitor_id);
    expect((await findUser(testDb(), again.visitor_id))!.expiresAt!.getTime()).toBeGreaterThan(
      Date.now() + 29 * 86_400_000,
    );
  });

  it('a visitor is offered in no access list, takes no seat, and is given no access, grant or API key', async () => {
    const own = await createWidgetTenant([SITE]);
    const session = await widgetSession(own.key, SITE);
    const ownerToken = await exchange(own.ownerKey);
    const agents = (await (await call('GET', '/api/agents', { token: ownerToken })).json()) as {
      agents: { access?: string[] }[];
    };
    expect(agents.agents.length).toBeGreaterThan(0);
    for (const agent of agents.agents) expect(agent.access).toEqual([]);
    expect((await listOrgs(testDb())).find((o) => o.id === own.orgId)).toMatchObject({ users: 1, agents: 1 });
    await expect(grantAccess(testDb(), own.agentId, session.visitor_id)).rejects.toThrow(/not a member/);
    await expect(createApiKey(testDb(), { userId: session.visitor_id })).rejects.toThrow(/widget visitor/);
    const key = await call('POST', '/api/admin/api-keys', {
      token: ownerToken,
      body: { user_id: session.visitor_id, name: 'visitor' },
    });
    expect(key.status).toBe(404);
    expect(await testDb().agentAccess.count({ where: { userId: session.visitor_id } })).toBe(0);
    expect(await testDb().apiKey.count({ where: { userId: session.visitor_id } })).toBe(0);
  });

  it("a key's daily credit budget (credits_per_day) refuses new runs with 402 once spent", async () => {
    const own = await createWidgetTenant([SITE]);
    const budget = (credits_per_day: number) =>
      applyFile(
        testDb(),
        parseApplyFile({
          orgs: [
            { name: own.orgName, widget_keys: [{ name: 'site', agent: 'support', origins: [SITE], credits_per_day }] },
          ],
        }),
      );
    expect((await budget(0)).changes).toEqual([expect.stringMatching(/credits_per_day default → 0/)]);
    const session = await widgetSession(own.key, SITE);
    const start = () =>
      widgetCall('POST', '/run', {
        origin: SITE,
        token: session.visitor_token,
        body: { ...userMessage('hi'), stream: false },
      });
    const refused = await start();
    expect(refused.status).toBe(402);
    expect(refused.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/used its 0 credits for today/);
    expect(await testDb().task.count({ where: { userId: session.visitor_id } })).toBe(0);

    await budget(1);
    const first = await start();
    expect(first.status).toBe(202);
    const { id: runId } = (await first.json()) as { id: string };
    await eventually('the run to spend a credit', async () =>
      expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).creditsUsed).toBeGreaterThanOrEqual(1),
    );
    expect((await start()).status).toBe(402);
  });
});
