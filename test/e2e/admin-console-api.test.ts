import {
  AgentRunClient,
  BadRequestError,
  PermissionError,
  type ApplyDocument,
  type OrgConfiguration,
} from '@agent-run/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, exchange } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/**
 * The console's administration api over HTTP against the running stack: GET /api/agents per
 * role, GET /api/admin/org and POST /api/admin/apply (the same code as `admin apply`) with
 * their role rules, dry runs, errors and org isolation. Calls go through the SDK where it
 * has a method, and raw HTTP where the status and body format are the point.
 */
let tenant: Tenant;
let other: Tenant;
const client = (apiKey: string) => new AgentRunClient({ baseUrl: apiUrl(), apiKey });
let owner: AgentRunClient;
let admin: AgentRunClient;
let adminKey: string;
let guestKey: string;
let emails: { owner: string; member: string; outsider: string; admin: string; guest: string };

/** The org's configuration without what changes on every read (nothing does: it is the stored state). */
const snapshot = async () => JSON.stringify((await owner.admin.org()).document);

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant({ approval_required_tools: ['save_memory'] }), createTenant()]);
  owner = client(tenant.keys.owner);
  const org = await owner.admin.org();
  const emailOf = (id: string) => org.users.find((u) => u.id === id)!.email;
  const tag = emailOf(tenant.users.owner).replace(/^owner-/, '');
  emails = {
    owner: emailOf(tenant.users.owner),
    member: emailOf(tenant.users.member),
    outsider: emailOf(tenant.users.outsider),
    admin: `admin-${tag}`,
    guest: `guest-${tag}`,
  };
  // An admin and a guest (granted a customer-facing agent), added by the owner through the api.
  const added = await owner.admin.apply({
    users: [
      { email: emails.admin, role: 'admin', name: 'Ada Admin' },
      { email: emails.guest, role: 'guest' },
    ],
    agents: [{ name: 'help', customer_facing: true, access: [emails.guest] }],
    keys: [
      { user: emails.admin, name: 'console' },
      { user: emails.guest, name: 'console' },
    ],
  });
  expect(added.dry_run).toBe(false);
  expect(added.changes).toEqual(
    expect.arrayContaining([
      expect.stringMatching(`^created user ${emails.admin} \\(admin\\)`),
      expect.stringMatching('^created agent "help"'),
      `granted agent "help" in org "${org.name}" to ${emails.guest}`,
    ]),
  );
  adminKey = added.org.keys.find((k) => k.user === emails.admin)!.key!;
  guestKey = added.org.keys.find((k) => k.user === emails.guest)!.key!;
  admin = client(adminKey);
});

describe('GET /api/agents', () => {
  it('owners and admins see every agent with settings and access; members and guests only the agents granted to them', async () => {
    const all = await admin.agents.list();
    expect(all.agents.map((a) => a.name)).toEqual(['agent', 'private', 'help']);
    expect(all.agents[0]).toMatchObject({
      id: tenant.agentId,
      customer_facing: false,
      settings: { approval_required_tools: ['save_memory'] },
      access: [emails.member],
    });
    expect((await owner.agents.list()).count).toBe(3);

    const member = await client(tenant.keys.member).agents.list();
    expect(member).toEqual({ agents: [{ id: tenant.agentId, name: 'agent', customer_facing: false }], count: 1 });
    expect((await client(tenant.keys.outsider).agents.list()).agents).toEqual([]);
    const guest = await client(guestKey).agents.list();
    expect(guest.agents).toEqual([{ id: expect.any(String), name: 'help', customer_facing: true }]);
    expect((await call('GET', '/api/agents')).status).toBe(401);
  });
});

describe('GET /api/admin/org and POST /api/admin/apply', () => {
  it('the configuration applied back changes nothing', async () => {
    const config = await admin.admin.org();
    expect(config).toMatchObject({ id: tenant.orgId, credits: '100000' });
    expect(config.document.users.map((u) => [u.email, u.role])).toEqual([
      [emails.owner, 'owner'],
      [emails.member, 'member'],
      [emails.outsider, 'member'],
      [emails.admin, 'admin'],
      [emails.guest, 'guest'],
    ]);
    expect(config.document.agents.find((a) => a.name === 'agent')).toEqual({
      name: 'agent',
      customer_facing: false,
      settings: { approval_required_tools: ['save_memory'] },
      access: [emails.member],
    });
    // Straight from the GET body, over HTTP.
    const res = await call('POST', '/api/admin/apply', { token: await exchange(adminKey), body: config.document });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { changes: string[]; dry_run: boolean; org: { id: string } };
    expect(result).toMatchObject({ changes: [], dry_run: false, org: { id: tenant.orgId } });
  });

  it('creates a user, an agent with tools and approvals, a widget key and flows; new secrets are shown once; applying again changes nothing', async () => {
    const doc: ApplyDocument = {
      users: [{ email: `new-${emails.member}`, role: 'member', name: 'New Member' }],
      agents: [
        {
          name: 'support',
          customer_facing: true,
          settings: {
            model: 'offline',
            tools: ['save_memory', 'recall_memory'],
            approval_required_tools: ['save_memory'],
            sensitive_tools: ['save_memory'],
            require_plan_approval: true,
            max_steps: 4,
          },
          access: [`new-${emails.member}`],
        },
      ],
      widget_keys: [{ name: 'site', agent: 'support', origins: ['https://shop.example.test'] }],
      flows: [
        {
          name: 'nightly',
          kind: 'cron',
          agent: 'support',
          user: emails.admin,
          message: 'Summarise the day',
          cron: { schedule: '0 3 * * *' },
        },
        { name: 'hook', kind: 'webhook', agent: 'support', user: emails.admin, message: 'Event: {{type}}' },
      ],
    };
    const first = await admin.admin.apply(doc);
    expect(first.changes).toHaveLength(6);
    const widgetKey = first.org.widget_keys[0]!;
    expect(widgetKey.key).toMatch(/^\w+_/);
    const hook = first.org.flows.find((f) => f.name === 'hook')!;
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.path).toBe(`/api/v1/flows/${hook.id}/webhook`);
    expect(first.org.flows.find((f) => f.name === 'nightly')!.secret).toBeUndefined();

    const again = await admin.admin.apply(doc);
    expect(again.changes).toEqual([]);
    expect(again.org.widget_keys[0]).toEqual({
      name: 'site',
      id: widgetKey.id,
      prefix: widgetKey.prefix,
      origins: ['https://shop.example.test'],
      revoked: false,
    });
    expect(again.org.flows.every((f) => f.secret === undefined)).toBe(true);

    const config = await admin.admin.org();
    expect(JSON.stringify(config)).not.toContain(widgetKey.key!);
    expect(JSON.stringify(config)).not.toContain(hook.secret!);
    expect(config.flows).toEqual(
      expect.arrayContaining([
        { name: 'hook', id: hook.id, kind: 'webhook', enabled: true, path: hook.path },
        { name: 'nightly', id: expect.any(String), kind: 'cron', enabled: true, path: null },
      ]),
    );
    expect(config.widget_keys).toEqual([
      expect.objectContaining({ name: 'site', agent: 'support', prefix: widgetKey.prefix, revoked: false }),
    ]);
    expect(config.document.flows.find((f) => f.name === 'nightly')!.cron).toEqual({
      schedule: '0 3 * * *',
      timezone: 'UTC',
      overlap: 'skip',
      catchup_window_seconds: 300,
    });
    // The new member, given a key, sees the new agent in their list.
    const memberKey = (await admin.admin.apply({ keys: [{ user: `new-${emails.member}`, name: 'k' }] })).org.keys[0]!
      .key!;
    expect((await client(memberKey).agents.list()).agents.map((a) => a.name)).toEqual(['support']);

    // Disable the flow, revoke the key, take the access away: all by sending the state wanted.
    const stop = await admin.admin.apply({
      agents: [{ name: 'support', access: [] }],
      widget_keys: [{ name: 'site', agent: 'support', origins: ['https://shop.example.test'], revoked: true }],
      flows: [{ ...config.document.flows.find((f) => f.name === 'hook')!, enabled: false }],
    });
    expect(stop.changes).toEqual([
      `revoked agent "support" in org "${config.name}" from new-${emails.member}`,
      `updated flow "hook" in org "${config.name}": enabled`,
      `revoked widget key "site" in org "${config.name}" (${widgetKey.id})`,
    ]);
    const after = await admin.admin.org();
    expect(after.widget_keys).toEqual([expect.objectContaining({ name: 'site', revoked: true })]);
    expect(after.document.widget_keys).toEqual([]);
    expect(after.flows.find((f) => f.name === 'hook')!.enabled).toBe(false);
    // The whole configuration still round-trips.
    expect((await admin.admin.apply(after.document)).changes).toEqual([]);
  });

  it("a messaging flow needs Slack's signing secret when created, and keeps it when the document leaves it out", async () => {
    expect(
      (
        await call('PUT', '/api/admin/secrets/SLACK_BOT_TOKEN', {
          token: await exchange(adminKey),
          body: { value: 'xoxb-1' },
        })
      ).status,
    ).toBe(200);
    const flow = {
      name: 'slack',
      kind: 'messaging' as const,
      agent: 'help',
      user: emails.admin,
      message: '{{event.text}}',
      messaging: { bot_token_secret: 'SLACK_BOT_TOKEN' },
    };
    const refused = await admin.admin.apply({ flows: [flow] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as { detail: string }).detail).toBe(
      "body.flows.0.secret: a messaging flow needs Slack's signing secret",
    );
    const created = await admin.admin.apply({ flows: [{ ...flow, secret: 'a-slack-signing-secret-0123456789' }] });
    expect(created.changes).toEqual([expect.stringMatching(/^created messaging flow "slack"/)]);
    expect(created.org.flows[0]!.secret).toBeUndefined();
    const config = await admin.admin.org();
    expect(JSON.stringify(config)).not.toContain('a-slack-signing-secret');
    expect((await admin.admin.apply(config.document)).changes).toEqual([]);
  });

  it('a dry run reports the changes and keeps nothing', async () => {
    const before = await snapshot();
    const dry = await admin.admin.apply(
      {
        agents: [{ name: 'draft' }],
        widget_keys: [{ name: 'draft-key', agent: 'help', origins: ['https://a.example.test'] }],
      },
      { dryRun: true },
    );
    expect(dry.dry_run).toBe(true);
    expect(dry.changes).toHaveLength(2);
    expect(dry.org.widget_keys[0]!.key).toBeUndefined();
    expect(await snapshot()).toBe(before);
    expect((await admin.agents.list()).agents.map((a) => a.name)).not.toContain('draft');
  });

  it('only an owner gives the owner role or changes an owner; the org keeps an owner', async () => {
    const before = await snapshot();
    const refused = async (doc: ApplyDocument, type: typeof PermissionError | typeof BadRequestError, by = admin) => {
      const err = await by.admin.apply(doc).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(type);
      expect(await snapshot()).toBe(before);
      return (err as { detail: string }).detail;
    };
    // An admin may not promote anyone to owner (a new user or an existing one), nor change an owner.
    expect(
      await refused(
        { users: [{ email: emails.member, role: 'owner' }], agents: [{ name: 'sneaky' }] },
        PermissionError,
      ),
    ).toContain('only an owner may give the owner role');
    expect(await refused({ users: [{ email: `boss-${emails.member}`, role: 'owner' }] }, PermissionError)).toContain(
      'only an owner may give the owner role',
    );
    expect(await refused({ users: [{ email: emails.owner, role: 'member' }] }, PermissionError)).toContain(
      "only an owner may change an owner's role or name",
    );
    expect(
      await refused({ users: [{ email: emails.owner, role: 'owner', name: 'Renamed' }] }, PermissionError),
    ).toContain("change an owner's role or name");
    // Nor hold an owner's key (a key acts as its user), through apply or the key endpoint.
    expect(await refused({ keys: [{ user: emails.owner, name: 'borrowed' }] }, PermissionError)).toContain(
      'only an owner may create a key for an owner',
    );
    await expect(admin.admin.createApiKey({ userId: tenant.users.owner, name: 'borrowed' })).rejects.toBeInstanceOf(
      PermissionError,
    );
    expect((await owner.admin.listApiKeys()).keys.filter((k) => k.name === 'borrowed')).toEqual([]);
    // The only owner may not step down.
    expect(await refused({ users: [{ email: emails.owner, role: 'admin' }] }, BadRequestError, owner)).toContain(
      'at least one owner',
    );
    // Unchanged owners in a document are fine for an admin; an admin changes members' roles.
    const ok = await admin.admin.apply({
      users: [
        { email: emails.owner, role: 'owner' },
        { email: emails.outsider, role: 'guest' },
      ],
    });
    expect(ok.changes).toEqual([
      `updated user ${emails.outsider} in org "${(await owner.admin.org()).name}": role member → guest`,
    ]);
    // An owner may promote, and then hand over.
    const handed = await owner.admin.apply({ users: [{ email: emails.admin, role: 'owner' }] });
    expect(handed.changes).toHaveLength(1);
    expect(
      (await client(adminKey)
        .admin.apply({
          users: [
            { email: emails.owner, role: 'admin' },
            { email: emails.admin, role: 'admin' },
          ],
        })
        .catch((e: unknown) => e)) instanceof BadRequestError,
    ).toBe(true);
    expect(
      (await client(adminKey).admin.apply({ users: [{ email: emails.owner, role: 'admin' }] })).changes,
    ).toHaveLength(1);
    expect(
      (await client(adminKey).admin.apply({ users: [{ email: emails.owner, role: 'owner' }] })).changes,
    ).toHaveLength(1);
  });

  it('operator-only agent settings (base_url, api_key_env, sandbox.network) are refused through the api, even for an owner', async () => {
    const before = await snapshot();
    const attempts: ApplyDocument[] = [
      // Model requests (with the service's key) sent to a server of the org's choosing.
      { agents: [{ name: 'agent', settings: { base_url: 'https://collector.invalid/v1' } }] },
      // A secret of the worker's environment sent as the model key.
      { agents: [{ name: 'new-agent', settings: { provider: 'openai', api_key_env: 'DATABASE_URL' } }] },
      // Sandbox commands on the worker host's network.
      { agents: [{ name: 'agent', settings: { sandbox: { network: true } } }] },
    ];
    for (const doc of attempts) {
      const err = await owner.admin.apply(doc).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PermissionError);
      expect((err as { detail: string }).detail).toMatch(/is set by the service's operator/);
      expect(await snapshot()).toBe(before);
    }
  });

  it("an org admin cannot turn run_command's approval off (sandbox.run_command_approval): 403, nothing changes", async () => {
    const before = await snapshot();
    const token = await exchange(adminKey);
    for (const agents of [
      [{ name: 'agent', settings: { sandbox: { run_command_approval: false } } }],
      [{ name: 'unapproved-commands', settings: { model: 'instant', sandbox: { run_command_approval: false } } }],
    ]) {
      const res = await call('POST', '/api/admin/apply', { token, body: { agents } });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        detail: expect.stringContaining("sandbox.run_command_approval is set by the service's operator"),
      });
      expect(await snapshot()).toBe(before);
    }
  });

  it('members and guests get 403; nothing changes', async () => {
    const before = await snapshot();
    for (const key of [tenant.keys.member, guestKey]) {
      const token = await exchange(key);
      expect((await call('GET', '/api/admin/org', { token })).status).toBe(403);
      const res = await call('POST', '/api/admin/apply', { token, body: { agents: [{ name: 'mine' }] } });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: expect.stringContaining('owners and admins') });
    }
    expect(await snapshot()).toBe(before);
  });

  it('an invalid body is 422 in the spec format, a document naming what does not exist 400; nothing changes', async () => {
    const before = await snapshot();
    const token = await exchange(adminKey);
    const invalid = await call('POST', '/api/admin/apply', {
      token,
      body: {
        name: 'x',
        credits: 5,
        agents: [{ name: 'ok' }, { name: '' }],
        users: [{ email: 'not-an-email', role: 'boss' }],
      },
    });
    expect(invalid.status).toBe(422);
    const detail = ((await invalid.json()) as { detail: { loc: (string | number)[]; msg: string; type: string }[] })
      .detail;
    expect(detail.map((d) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body', 'body.agents.1.name', 'body.users.0.email', 'body.users.0.role']),
    );
    for (const d of detail)
      expect(d).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    expect((await call('POST', '/api/admin/apply', { token, rawBody: '[1,2]' })).status).toBe(422);
    expect((await call('POST', '/api/admin/apply', { token })).status).toBe(422);
    expect((await call('POST', '/api/admin/apply?dry_run=maybe', { token, body: {} })).status).toBe(422);

    const unknown = await call('POST', '/api/admin/apply', {
      token,
      body: { agents: [{ name: 'new-one' }, { name: 'agent', access: ['nobody@example.test'] }] },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      detail:
        'body.agents.1.access.0: no user with email nobody@example.test in org "' +
        (await admin.admin.org()).name +
        '"',
    });
    // The agent created before the failing one was rolled back with it.
    expect(await snapshot()).toBe(before);
  });

  it("never shows or touches another org's data", async () => {
    const mine = JSON.stringify(await admin.admin.org());
    const theirs = await client(other.keys.owner).admin.org();
    expect(theirs.id).toBe(other.orgId);
    expect(theirs.agents.map((a) => a.id).sort()).toEqual([other.agentId, other.privateAgentId].sort());
    for (const id of [tenant.orgId, tenant.agentId, tenant.privateAgentId, tenant.users.owner])
      expect(JSON.stringify(theirs)).not.toContain(id);
    expect((await client(other.keys.owner).agents.list()).agents.map((a) => a.id)).not.toContain(tenant.agentId);
    // Their owner names one of our users: unknown in their org, so 400, and ours is untouched.
    const err = await client(other.keys.owner)
      .admin.apply({ agents: [{ name: 'agent', access: [emails.member] }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(JSON.stringify(await admin.admin.org())).toBe(mine);
    const ours: OrgConfiguration = JSON.parse(mine) as OrgConfiguration;
    expect(ours.agents.map((a) => a.id)).not.toContain(other.agentId);
  });
});
