import { AgentRunClient, PermissionError } from '@agent-run/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, exchange, userMessage } from '../support/http.ts';
import { readTaskStream, startBackgroundRun } from '../support/runs.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { launchBrowser, screenshot, signIn } from './browser.ts';
import { eventually } from '../support/eventually.ts';
import { startEverythingServer, startRecordingProxy } from '../support/mcp-servers.ts';
import { terminate } from '../support/processes.ts';
import { widgetCall, widgetSession } from '../support/widget.ts';

/**
 * The console's administration screens in headless Chromium against the running stack: an
 * admin (not an owner) manages members, agents, widget keys and flows; what they do is
 * checked through the api, and a member sees the result (and no admin screen).
 */
let browser: Browser;
let page: Page;
let tenant: Tenant;
let owner: AgentRunClient;
let adminKey: string;
let emails: { owner: string; member: string; outsider: string; admin: string };

/** The `changes` lines the screen shows after an apply; waits for one containing `text`. */
async function expectChange(p: Page, text: string): Promise<void> {
  await p.getByRole('list', { name: 'Changes' }).getByText(text, { exact: false }).first().waitFor();
}

beforeAll(async () => {
  tenant = await createTenant();
  owner = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.owner });
  const org = await owner.admin.org();
  const emailOf = (id: string) => org.users.find((u) => u.id === id)!.email;
  const tag = emailOf(tenant.users.owner).replace(/^owner-/, '');
  emails = {
    owner: emailOf(tenant.users.owner),
    member: emailOf(tenant.users.member),
    outsider: emailOf(tenant.users.outsider),
    admin: `admin-${tag}`,
  };
  const added = await owner.admin.apply({
    users: [{ email: emails.admin, role: 'admin' }],
    keys: [{ user: emails.admin, name: 'console' }],
  });
  adminKey = added.org.keys[0]!.key!;
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  await signIn(page, apiUrl(), adminKey, 'admin');
  await page.getByRole('link', { name: 'Admin' }).click();
});

afterAll(async () => {
  await browser?.close();
});

describe('administration screens (as an admin)', () => {
  it('members: owner-only choices are disabled; a role is changed and a member added', async () => {
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    // An admin may not give the owner role nor change an owner.
    expect(await page.getByLabel(`Role of ${emails.owner}`).isDisabled()).toBe(true);
    expect(await page.getByLabel(`Role of ${emails.member}`).getByRole('option', { name: 'owner' }).isDisabled()).toBe(
      true,
    );
    expect(await page.getByLabel('Role of the new member').getByRole('option', { name: 'owner' }).isDisabled()).toBe(
      true,
    );

    await page.getByLabel(`Role of ${emails.outsider}`).selectOption('guest');
    await expectChange(page, `updated user ${emails.outsider}`);
    await page.getByLabel('Email').fill(`new-${emails.member}`);
    await page.getByLabel('Name').fill('New Member');
    await page.getByLabel('Role of the new member').selectOption('member');
    await page.getByRole('button', { name: 'Add member' }).click();
    await expectChange(page, `created user new-${emails.member} (member)`);
    await page.getByRole('cell', { name: `new-${emails.member}` }).waitFor();
    await screenshot(page, 'admin-members');
    const users = (await owner.admin.org()).document.users;
    expect(users.find((u) => u.email === emails.outsider)!.role).toBe('guest');
    expect(users.find((u) => u.email === `new-${emails.member}`)).toEqual({
      email: `new-${emails.member}`,
      role: 'member',
      name: 'New Member',
    });
  });

  it('agents: creates one with tools, approvals and access (previewed first); the member sees it in the chat picker', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'New agent' }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await form.getByLabel('Agent name').fill('helper');
    await form.getByLabel('Provider').selectOption('offline');
    await form.getByLabel('Max steps').fill('5');
    await form.getByLabel('System prompt').fill('You help customers.');
    await form.getByLabel('All catalog tools (including tools added later)').uncheck();
    for (const tool of [
      'create_artifact',
      'update_artifact',
      'forget_memory',
      'read_file',
      'write_file',
      'list_files',
      'run_command',
    ])
      await form.getByLabel(`Tool ${tool}`).uncheck();
    await form.getByLabel('Approval for save_memory').check();
    await form.getByLabel('Sensitive save_memory').check();
    await form.getByLabel('Deep-mode plans wait for approval').check();
    await form.getByLabel('Customer-facing (widget and messaging channels)').check();
    await form.getByLabel(`Access for ${emails.member}`).check();
    await form.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Preview (nothing was changed)').waitFor();
    await expectChange(page, 'created agent "helper"');
    expect((await owner.agents.list()).agents.map((a) => a.name)).not.toContain('helper');
    await form.getByRole('button', { name: 'Save agent' }).click();
    await page.getByRole('button', { name: 'Edit agent helper' }).waitFor();
    await expectChange(page, `granted agent "helper"`);
    await screenshot(page, 'admin-agents');
    const helper = (await owner.agents.list()).agents.find((a) => a.name === 'helper')!;
    expect(helper).toMatchObject({
      customer_facing: true,
      access: [emails.member],
      settings: {
        provider: 'offline',
        max_steps: 5,
        system_prompt: 'You help customers.',
        tools: ['request_user_input', 'ask_user_question', 'save_memory', 'recall_memory'],
        approval_required_tools: ['save_memory'],
        sensitive_tools: ['save_memory'],
        require_plan_approval: true,
      },
    });

    // Editing keeps what the form does not show, and changes what it does.
    await page.getByRole('button', { name: 'Edit agent helper' }).click();
    const edit = page.getByRole('form', { name: 'Edit agent helper' });
    expect(await edit.getByLabel('Max steps').inputValue()).toBe('5');
    await edit.getByLabel('Temperature').fill('0.3');
    await screenshot(page, 'admin-agent-edit');
    await edit.getByRole('button', { name: 'Save agent' }).click();
    await expectChange(page, 'updated agent "helper"');
    expect((await owner.agents.list()).agents.find((a) => a.name === 'helper')!.settings).toMatchObject({
      temperature: 0.3,
      max_steps: 5,
    });

    const memberPage = await browser.newPage();
    await signIn(memberPage, apiUrl(), tenant.keys.member, 'member');
    const picker = memberPage.getByLabel('Agent', { exact: true });
    await eventually('the agent picker options', async () =>
      expect(await picker.locator('option').allTextContents()).toEqual(['agent', 'helper (customer-facing)']),
    );
    await picker.selectOption({ label: 'helper (customer-facing)' });
    await memberPage.getByRole('button', { name: 'New task' }).waitFor();
    await memberPage.reload();
    // The choice is kept for the tab.
    await eventually('the kept agent choice', async () =>
      expect(await memberPage.getByLabel('Agent', { exact: true }).inputValue()).toBe(helper.id),
    );
    await screenshot(memberPage, 'chat-agent-picker');
    await memberPage.close();
  });

  it('secrets and tool servers: a secret is set (write-only) and one deleted; a tool server of helper is tested (its tools listed) and saved; the value is in no page or answer', async () => {
    const everything = await startEverythingServer('streamableHttp');
    const recorder = await startRecordingProxy(everything.url);
    const secretValue = `console-secret-${Math.random().toString(36).slice(2)}`;
    const answers: Promise<string>[] = [];
    const listen = (res: import('playwright-core').Response) =>
      void (res.url().includes('/api/') && answers.push(res.text().catch(() => '')));
    page.on('response', listen);
    try {
      await page.getByRole('link', { name: 'Secrets' }).click();
      for (const [name, value] of [
        ['TOOLS_TOKEN', secretValue],
        ['SPARE', 'spare-value'],
      ]) {
        await page.getByLabel('Secret name').fill(name!);
        await page.getByLabel('Secret value').fill(value!);
        await page.getByRole('button', { name: 'Set secret' }).click();
        await page.locator(`tr[data-secret="${name}"]`).waitFor();
      }
      expect(await page.getByLabel('Secret value').inputValue()).toBe('');
      await page.getByRole('button', { name: 'Delete secret SPARE' }).click();
      await page.locator('tr[data-secret="SPARE"]').waitFor({ state: 'detached' });
      await screenshot(page, 'admin-secrets');
      expect((await owner.admin.listSecrets()).secrets.map((s) => s.name)).toEqual(['TOOLS_TOKEN']);

      await page.getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('button', { name: 'Edit agent helper' }).click();
      const form = page.getByRole('form', { name: 'Edit agent helper' });
      await form.getByRole('button', { name: 'Add tool server' }).click();
      const server = form.locator('.tool-server');
      await server.getByLabel('Server name').fill('everything');
      await server.getByLabel('Server URL').fill(recorder.url);
      await server.getByLabel('Allowed tools (comma-separated; empty: all)').fill('echo, get-sum');
      await server.getByRole('button', { name: 'Add header' }).click();
      await server.getByLabel('Header name').fill('Authorization');
      await server.getByLabel('Secret for header Authorization').selectOption('TOOLS_TOKEN');
      await server.getByRole('button', { name: 'Test connection' }).click();
      const result = server.getByRole('status', { name: 'Connection test' });
      await result.getByText('2 tools offered').waitFor();
      expect(await result.locator('code').allTextContents()).toEqual(['everything__echo', 'everything__get-sum']);
      expect(new Set(recorder.seen)).toEqual(new Set([secretValue]));
      await screenshot(page, 'admin-tool-server');
      await form.getByRole('button', { name: 'Save agent' }).click();
      await expectChange(page, 'updated agent "helper"');
      const helper = (await owner.agents.list()).agents.find((a) => a.name === 'helper')!;
      expect(helper.settings?.tool_servers).toEqual([
        {
          name: 'everything',
          url: recorder.url,
          headers: { Authorization: { secret: 'TOOLS_TOKEN' } },
          allowed_tools: ['echo', 'get-sum'],
        },
      ]);
      expect(helper.settings?.temperature).toBe(0.3); // what the form does not change is kept

      // A run of helper calls the server's tool: the inspector tells the server's status and the call as it tells a built-in one's.
      const caller = { token: await exchange(tenant.keys.owner), agentId: helper.id };
      const echo = `/tool everything__echo ${JSON.stringify({ message: 'from the console' })}`;
      const run = await startBackgroundRun(caller, { messages: [{ role: 'user', content: echo }], mode: 'fast' });
      await readTaskStream(caller, run.taskId);
      await page.goto(`${apiUrl()}/console/#/inspect/${run.runId}`); // the run's id alone: the console finds its agent
      const summary = (event: string) => page.locator(`tr[data-event="${event}"] td.summary`).allTextContents();
      await page.getByRole('tab', { name: /Raw events/ }).click();
      await page.locator('tr[data-event="TOOL_CALL_RESULT"]').waitFor();
      expect(await summary('SYSTEM_STATUS')).toEqual(
        expect.arrayContaining(['Tool server everything: connecting…', 'Tool server everything: ready, 2 tools']),
      );
      expect(await summary('TOOL_CALL_START')).toEqual(['Tool call everything__echo (tool server everything)']);
      expect((await summary('TOOL_CALL_RESULT'))[0]).toMatch(
        /^Result of everything__echo \(tool server everything\): .*Echo: from the console/,
      );
      await screenshot(page, 'inspector-tool-server');

      expect(await page.content()).not.toContain(secretValue);
      const texts = await Promise.all(answers);
      expect(texts.length).toBeGreaterThan(5);
      for (const text of texts) expect(text).not.toContain(secretValue);
      await page.getByRole('link', { name: 'Admin' }).click(); // where the next steps start
    } finally {
      page.off('response', listen);
      recorder.server.close();
      await terminate(everything.child);
    }
  });

  it('widget keys: a new key is shown once, then revoked', async () => {
    await page.getByRole('link', { name: 'Widget keys' }).click();
    await page.getByLabel('Key name').fill('site');
    await page.getByLabel('Customer-facing agent').selectOption('helper');
    await page.getByLabel('Allowed origins').fill('https://shop.example.test, https://www.example.test');
    await page.getByRole('button', { name: 'Create widget key' }).click();
    const key = (await page.getByLabel('New widget key site').textContent())!;
    expect(key.length).toBeGreaterThan(20);
    const row = page.locator('tr[data-widget-key="site"]');
    await row.waitFor();
    expect(await row.textContent()).not.toContain(key);
    expect(await row.textContent()).toContain('https://www.example.test');
    await screenshot(page, 'admin-widget-keys');
    await row.getByRole('button', { name: 'Revoke widget key site' }).click();
    await row.getByText('revoked').waitFor();
    await expectChange(page, 'revoked widget key "site"');
    expect(await page.getByLabel('New widget key site').count()).toBe(0);
    expect((await owner.admin.org()).widget_keys).toEqual([expect.objectContaining({ name: 'site', revoked: true })]);
  });

  it('flows: a cron flow and a webhook flow (its secret shown once) are created; the webhook flow is disabled', async () => {
    await page.getByRole('link', { name: 'Flows' }).click();
    await page.getByRole('button', { name: 'New flow' }).click();
    let form = page.getByRole('form', { name: 'New flow' });
    await form.getByLabel('Flow name').fill('nightly');
    await form.getByLabel('Kind').selectOption('cron');
    await form.getByLabel('Agent', { exact: true }).selectOption('helper');
    expect(await form.getByLabel('Runs as').getByRole('option', { name: emails.owner }).isDisabled()).toBe(true);
    await form.getByLabel('Runs as').selectOption(emails.admin);
    await form.getByLabel('Message template').fill('Summarise the day');
    await form.getByLabel('Schedule (cron expression, or seconds)').fill('0 3 * * *');
    await form.getByLabel('Timezone').fill('Europe/Berlin');
    await form.getByRole('button', { name: 'Save flow' }).click();
    await page.locator('tr[data-flow="nightly"]').waitFor();

    await page.getByRole('button', { name: 'New flow' }).click();
    form = page.getByRole('form', { name: 'New flow' });
    await form.getByLabel('Flow name').fill('hook');
    await form.getByLabel('Kind').selectOption('webhook');
    await form.getByLabel('Message template').fill('Event: {{type}}');
    await form.getByRole('button', { name: 'Save flow' }).click();
    const secret = (await page.getByLabel('Secret of flow hook').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const row = page.locator('tr[data-flow="hook"]');
    expect(await row.textContent()).toMatch(/\/api\/v1\/flows\/flw_\w+\/webhook/);
    expect(await row.textContent()).toContain('enabled');
    await screenshot(page, 'admin-flows');
    await row.getByRole('button', { name: 'Disable flow hook' }).click();
    await row.getByText('disabled').waitFor();
    await expectChange(page, 'updated flow "hook"');
    const config = await owner.admin.org();
    expect(config.flows.map((f) => [f.name, f.kind, f.enabled])).toEqual([
      ['hook', 'webhook', false],
      ['nightly', 'cron', true],
    ]);
    expect(config.document.flows.find((f) => f.name === 'nightly')).toMatchObject({
      agent: 'helper',
      user: emails.admin,
      cron: { schedule: '0 3 * * *', timezone: 'Europe/Berlin' },
    });
    // A new flow runs as the signed-in admin by default; an owner is not offered to an admin.
    expect(config.document.flows.find((f) => f.name === 'hook')?.user).toBe(emails.admin);
  });

  it('outbound webhooks: one is created for an agent and some events (its secret shown once), then disabled', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Webhook name').fill('runs');
    await page.getByLabel('Receiver URL').fill('http://127.0.0.1:9/hooks');
    await page.getByLabel('Runs of').selectOption('helper');
    await page.getByLabel('Event run.cancelled').uncheck();
    await page.getByLabel('Event approval.requested').uncheck();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    expect(await page.getByLabel('Secret of webhook runs').textContent()).toMatch(/^whsec_/);
    const row = page.locator('tr[data-webhook="runs"]');
    await row.getByRole('button', { name: 'Disable webhook runs' }).click();
    await row.getByRole('button', { name: 'Enable webhook runs' }).waitFor();
    await expectChange(page, 'updated webhook "runs"');
    await screenshot(page, 'admin-webhooks');
    expect((await owner.admin.org()).document.webhooks).toEqual([
      {
        name: 'runs',
        url: 'http://127.0.0.1:9/hooks',
        agent: 'helper',
        events: ['run.completed', 'run.failed', 'run.awaiting_input'],
        disabled: true,
      },
    ]);
  });

  it("usage shows the api's figures per agent and the credits left; a widget visitor is no member, and its run is found under source widget", async () => {
    const site = 'http://shop.example.test';
    const applied = await owner.admin.apply({
      agents: [{ name: 'front', customer_facing: true }],
      widget_keys: [{ name: 'usage-site', agent: 'front', origins: [site] }],
    });
    const visitor = await widgetSession(applied.org.widget_keys.find((k) => k.name === 'usage-site')!.key!, site);
    const started = await widgetCall('POST', '/run', {
      origin: site,
      token: visitor.visitor_token,
      body: { ...userMessage('Hello from the shop'), stream: false },
    });
    expect(started.status).toBe(202);
    const { id: runId } = (await started.json()) as { id: string };
    await eventually('the visitor run to end', async () =>
      expect((await owner.runs.list({ run_id: runId })).runs[0]?.status).toBe('completed'),
    );
    const usage = await owner.admin.usage();
    const front = usage.agents.find((a) => a.agent_name === 'front')!;
    expect(front.runs).toBe(1);

    await page.getByRole('link', { name: 'Usage' }).click();
    const digits = (text: string | null) => Number(text!.replace(/\D/g, ''));
    const cells = page.locator(`table[aria-label="Usage by agent"] tr[data-usage-row="${front.agent_id}"] td`);
    await cells.first().waitFor();
    expect(await cells.nth(0).textContent()).toBe('front');
    expect((await cells.allTextContents()).slice(1).map(digits)).toEqual([
      front.runs,
      front.failed_runs,
      front.input_tokens,
      front.output_tokens,
      front.credits,
    ]);
    expect(digits(await page.getByTestId('credits-left').locator('strong').textContent())).toBe(
      Number(usage.credits.balance),
    );
    expect(await page.getByTestId('credit-warning').count()).toBe(0);
    await screenshot(page, 'admin-usage');

    await page.getByRole('link', { name: 'Members' }).click();
    const rows = page.locator('table.members tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe((await owner.admin.listMembers()).count);
    expect(await page.locator('table.members').textContent()).not.toContain('widget.invalid');

    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByLabel('Source').fill('widget');
    await page.keyboard.press('Tab');
    await page.locator(`tr[data-run="${runId}"]`).getByText('widget visitor').waitFor();
    await page.getByRole('link', { name: 'Admin' }).click();
  });

  it('an owner-only change is refused with the reason, and nothing changes', async () => {
    await page.getByRole('link', { name: 'Members' }).click();
    // The page would not offer it; the api refuses it anyway (the SDK, with the admin's key).
    const admin = new AgentRunClient({ baseUrl: apiUrl(), apiKey: adminKey });
    await expect(admin.admin.apply({ users: [{ email: emails.member, role: 'owner' }] })).rejects.toBeInstanceOf(
      PermissionError,
    );
    expect((await owner.admin.org()).document.users.find((u) => u.email === emails.member)!.role).toBe('member');
  });

  it('a member has no Admin link and the admin api refuses them', async () => {
    const p = await browser.newPage();
    await signIn(p, apiUrl(), tenant.keys.member, 'member');
    expect(await p.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await p.goto(`${apiUrl()}/console/#/admin/members`);
    await p.getByLabel('Agent', { exact: true }).waitFor();
    expect(await p.getByRole('heading', { name: 'Administration' }).count()).toBe(0);
    await p.close();
    const member = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member });
    await expect(member.admin.org()).rejects.toBeInstanceOf(PermissionError);
    await expect(member.admin.apply({ agents: [{ name: 'mine' }] })).rejects.toBeInstanceOf(PermissionError);
  });
});

describe('administration on a phone', () => {
  it('the agents screen fits a phone viewport and is usable with the keyboard', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    p.setDefaultTimeout(20_000);
    await signIn(p, apiUrl(), adminKey, 'admin');
    await p.goto(`${apiUrl()}/console/#/admin/agents`);
    await p.getByRole('button', { name: 'Edit agent helper' }).focus();
    await p.keyboard.press('Enter');
    await p.getByRole('form', { name: 'Edit agent helper' }).waitFor();
    expect(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(p, 'admin-phone');
    await phone.close();
  });
});
