import { AgentRunClient, PermissionError } from '@agent-run/client';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, exchange } from '../support/http.ts';
import { answer, startBackgroundRun, waitForPending, type PendingRequestBody } from '../support/runs.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { launchBrowser, screenshot, signIn } from './browser.ts';
import { eventually } from '../support/eventually.ts';

/** The web console in headless Chromium against the running stack (offline model). */
const ask = (args: Record<string, unknown>) => `Please help.\n/tool request_user_input ${JSON.stringify(args)}`;

let browser: Browser;
let context: BrowserContext;
let page: Page;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant({ approval_required_tools: ['save_memory'], require_plan_approval: true });
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  await browser?.close();
});

async function useAgent(agentId: string): Promise<void> {
  await useAgentOn(page, agentId);
}

async function useAgentOn(p: Page, agentId: string): Promise<void> {
  await p.getByLabel('Agent', { exact: true }).selectOption(agentId);
}

/** Starts a new task with `message` in `mode`. */
async function send(message: string, mode: 'auto' | 'fast' | 'deep' = 'fast'): Promise<void> {
  await page.getByRole('button', { name: 'New task' }).click();
  await page.getByLabel('Mode').selectOption(mode);
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByRole('button', { name: 'Send', exact: true }).last().click();
}

function question(type: string): Locator {
  return page.locator(`.input-request[data-input-type="${type}"]`);
}

const ids = (r: PendingRequestBody) => ({ request_id: r.request_id, run_id: r.run_id, input_type: r.input_type });

async function expectFinished(): Promise<void> {
  await page.getByTestId('run-status').filter({ hasText: 'Completed' }).waitFor();
}

describe('console', () => {
  it('serves the page with its own CSP and a config', async () => {
    const res = await fetch(`${apiUrl()}/console/chat/deep/link`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('/console/main.js');
    expect((await fetch(`${apiUrl()}/console/missing.js`)).status).toBe(404);
    const config = (await (await fetch(`${apiUrl()}/console/config.json`)).json()) as {
      temporal_workflows_url: string;
      demo_key_hint?: string;
    };
    expect(config.temporal_workflows_url).toMatch(/\/namespaces\/[\w-]+\/workflows$/);
    expect(config.demo_key_hint).toBeUndefined(); // no npm start demo tenant on this stack
  });

  it('loads in a fresh browser with no error in its console (its icon included), nor does the API reference', async () => {
    const fresh = await browser.newContext();
    const errors: string[] = [];
    const first = await fresh.newPage();
    first.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    first.on('pageerror', (err) => void errors.push(String(err)));
    await first.goto(`${apiUrl()}/console/`, { waitUntil: 'networkidle' });
    await first.getByLabel('API key').waitFor();
    // The API reference too: no request refused by its CSP ("Ask AI"), no warning about our document.
    first.on('console', (m) => void (m.type() === 'warning' && errors.push(m.text())));
    await first.goto(`${apiUrl()}/docs`, { waitUntil: 'networkidle' });
    await first.getByText('Exchange an API key for a JWT').first().waitFor();
    await fresh.close();
    expect(errors).toEqual([]);
  });

  it('refuses a wrong key, signs in with a right one and streams a run to its answer', async () => {
    await page.goto(`${apiUrl()}/console/`);
    await page.getByLabel('API key').fill('ars_live_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually('the sign-in error', async () =>
      expect(await page.getByRole('alert').textContent()).toContain('Invalid API key'),
    );
    await screenshot(page, 'sign-in');
    await signIn(page, apiUrl(), tenant.keys.member, 'member');
    await useAgent(tenant.agentId);
    await send('Say hello in one line', 'auto');
    await expectFinished();
    await eventually('the answer', async () =>
      expect(await page.locator('.item.assistant').last().textContent()).toMatch(/\S/),
    );
    expect(await page.getByTestId('run-mode').textContent()).toMatch(/Mode: (fast|deep)/);
    expect(await page.getByTestId('run-usage').textContent()).toMatch(/\d+ tokens?, \d+(\.\d+)? credits?/);
    await screenshot(page, 'chat');
  });

  it.each([
    [
      'confirmation',
      { input_type: 'confirmation', prompt: 'Proceed?' },
      async (q: Locator) => q.getByRole('button', { name: 'Yes' }).click(),
      '"confirmed": true',
    ],
    [
      'text',
      { input_type: 'text', prompt: 'Your name?' },
      async (q: Locator) => (
        await q.getByLabel('Your answer').fill('Ada'),
        q.getByRole('button', { name: 'Send' }).click()
      ),
      '"value": "Ada"',
    ],
    [
      'number',
      { input_type: 'number', prompt: 'How many?' },
      async (q: Locator) => (await q.getByLabel('Number').fill('42'), q.getByRole('button', { name: 'Send' }).click()),
      '"value": "42"',
    ],
    [
      'choice',
      { input_type: 'choice', prompt: 'Pick a colour', choices: ['red', 'blue'] },
      async (q: Locator) => (await q.getByLabel('blue').check(), q.getByRole('button', { name: 'Send' }).click()),
      '"value": "blue"',
    ],
    [
      'multiline',
      { input_type: 'multiline', prompt: 'Describe' },
      async (q: Locator) => (
        await q.getByLabel('Your answer').fill('line 1\nline 2'),
        q.getByRole('button', { name: 'Send' }).click()
      ),
      '"value": "line 1\\nline 2"',
    ],
    [
      'structured_questions',
      {
        input_type: 'structured_questions',
        prompt: 'A few questions',
        questions: [{ question: 'Size?' }, { question: 'Colour?', choices: ['red', 'blue'] }],
      },
      async (q: Locator) => (
        await q.getByLabel('Size?').fill('large'),
        await q.getByLabel('Colour?').selectOption('blue'),
        q.getByRole('button', { name: 'Send' }).click()
      ),
      '"Colour?": "blue"',
    ],
  ])('answers a %s question through its form', async (type, args, fill, expected) => {
    await send(ask(args));
    await question(type).waitFor();
    if (type === 'choice') await screenshot(page, 'input-choice');
    await fill(question(type));
    await expectFinished();
    await page.locator('.tool-card summary').filter({ hasText: 'request_user_input' }).last().click();
    expect(await page.locator('.tool-card').last().textContent()).toContain(expected);
  });

  it('approves a plan with edited steps, which then progress one at a time', async () => {
    await send('Write a report', 'deep');
    const q = question('plan_approval');
    await q.waitFor();
    while ((await q.getByRole('button', { name: /Remove step/ }).count()) > 1)
      await q
        .getByRole('button', { name: /Remove step/ })
        .last()
        .click();
    await q.getByLabel('Step 1', { exact: true }).fill('Draft');
    await q.getByRole('button', { name: 'Add step' }).click();
    await q.getByLabel('Step 2', { exact: true }).fill('Polish');
    await screenshot(page, 'plan-approval');
    // Every state the plan shows, recorded in the page: steps must progress one by one, not all at the end.
    await page.evaluate(`{
      const seen = (window.__planStates = []);
      const record = () => {
        const state = [...document.querySelectorAll('.plan li')].map((li) => li.textContent).join(' | ');
        if (state && seen.at(-1) !== state) seen.push(state);
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
    }`);
    await q.getByRole('button', { name: 'Approve plan' }).click();
    await expectFinished();
    expect(await page.locator('.plan li').allTextContents()).toEqual(['Draft completed', 'Polish completed']);
    expect(await page.evaluate('window.__planStates')).toEqual(
      expect.arrayContaining(['Draft in_progress | Polish pending', 'Draft completed | Polish in_progress']),
    );
  });

  it('approves an action for the rest of the run', async () => {
    await send('/tool save_memory {"content":"likes tea"}');
    const q = question('action_approval');
    await q.waitFor();
    expect(await q.textContent()).toContain('save_memory');
    await q.getByLabel('Allow for the rest of this run').check();
    await q.getByRole('button', { name: 'Approve' }).click();
    await expectFinished();
  });

  it('a reload mid-run shows the pending question again and answering finishes the run', async () => {
    await send(ask({ input_type: 'choice', prompt: 'Tea or coffee?', choices: ['tea', 'coffee'] }));
    await question('choice').waitFor();
    // The tab kept what it shows and the id of the last event it saw.
    const saved = JSON.parse((await page.evaluate("sessionStorage.getItem('ars.console.runSnapshot')")) as string) as {
      lastEventId: string;
      runId: string;
    };
    expect(saved.lastEventId.startsWith(`${saved.runId}:`)).toBe(true);
    await page.reload();
    const q = question('choice');
    await q.waitFor();
    expect(await q.textContent()).toContain('Tea or coffee?');
    await q.getByLabel('coffee').check();
    await q.getByRole('button', { name: 'Send' }).click();
    await expectFinished();
    // The stream went on after the last event shown before the reload: nothing is shown twice.
    expect(await page.locator('.item.user').count()).toBe(1);
    expect(await page.locator('.item.user').textContent()).toContain('Tea or coffee?');
    expect(await page.locator('.tool-card').count()).toBe(1);
  });

  it('shows a run in the inspector with a link to the Temporal Web UI', async () => {
    const runLink = page.locator('.run-panel a[href^="#/inspect/"]').first();
    const runId = (await runLink.textContent())!;
    await runLink.click();
    await page.getByRole('tab', { name: /Raw events/ }).click();
    await page.locator('table.events tbody tr').first().waitFor();
    expect(await page.locator('table.events tbody tr').first().textContent()).toContain('RUN_STARTED');
    expect(await page.getByRole('link', { name: /Temporal Web UI/ }).getAttribute('href')).toMatch(
      new RegExp(`/workflows/${runId}$`),
    );
    await screenshot(page, 'inspector');
  });

  it('finds a run waiting for input on the Runs page under "Needs you"; its link opens its events', async () => {
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const { taskId, runId } = await startBackgroundRun(member, {
      messages: [{ role: 'user', content: ask({ input_type: 'text', prompt: 'Which branch?' }) }],
      mode: 'fast',
    });
    await waitForPending(member, taskId);
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByLabel('Status').selectOption({ label: 'Needs you' });
    const row = page.locator(`tr[data-run="${runId}"]`);
    // The row may first be the unfiltered list's, before the filter's read replaces it: wait for the filtered list.
    await eventually('only the run that needs you', async () =>
      expect(await page.locator('tr[data-run]').count()).toBe(1),
    );
    await row.waitFor();
    expect(await row.textContent()).toContain('Needs you');
    await screenshot(page, 'runs');
    // Opened from the link alone (no agent id anywhere): the view finds the run's agent itself.
    await page.evaluate("sessionStorage.removeItem('ars.console.agentId')");
    await row.getByRole('link', { name: runId }).click();
    await page.locator('.span-row[data-kind="run"]').waitFor();
    expect(await page.getByTestId('run-summary').textContent()).toMatch(/^Running agent · /);
  });

  it("traces a run live: its tool call behind an approval and its question, with durations, each span's detail, the raw events a tab away", async () => {
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const content = `Trace me.\n/tool save_memory {"content":"likes tea"}\n${ask({ input_type: 'text', prompt: 'Which branch?' }).split('\n')[1]}`;
    const { taskId, runId } = await startBackgroundRun(member, { messages: [{ role: 'user', content }], mode: 'fast' });
    const approval = await waitForPending(member, taskId);
    expect(await (await answer(member, taskId, { ...ids(approval), approved: true })).json()).toMatchObject({
      success: true,
    });
    const question = await waitForPending(member, taskId);
    expect(question.input_type).toBe('text');

    // Opened while the run waits: the question's span is open; answered, it closes as the trace follows the run.
    await page.goto(`${apiUrl()}/console/#/inspect/${runId}`);
    const row = (kind: string, label: RegExp) =>
      page.locator(`.span-row[data-kind="${kind}"]`).filter({ hasText: label });
    const wait = row('wait', /Input: Which branch\?/);
    await wait.getByText('…').waitFor();
    await answer(member, taskId, { ...ids(question), value: 'main' });
    await page.getByTestId('run-summary').filter({ hasText: 'Completed' }).waitFor();
    await expect.poll(() => wait.getByTestId('span-duration').textContent()).toMatch(/^\d+(\.\d)? m?s$/);

    // The approval waited, then the call ran: both with durations; a model step with its time to first token.
    const tool = row('tool', /^save_memory/);
    expect(await tool.getByTestId('span-duration').textContent()).toMatch(/^\d+(\.\d)? m?s$/);
    expect(
      await row('wait', /Approval of save_memory/)
        .getByTestId('span-duration')
        .textContent(),
    ).toMatch(/ m?s$/);
    expect(await page.locator('.span-row[data-kind="model"]').count()).toBe(3);
    const detail = page.getByRole('region', { name: 'Span detail' });
    await tool.click();
    expect(await detail.textContent()).toContain('"content": "likes tea"');
    expect(await detail.textContent()).toContain('"memory_id"');
    await screenshot(page, 'trace');
    await wait.click();
    expect(await detail.textContent()).toMatch(/Answered byyou.*"value": "main"/s);
    await page.locator('.span-row[data-kind="model"]').first().click();
    expect(await detail.textContent()).toMatch(/Time to first token\d+(\.\d)? m?s/);
    expect(await detail.textContent()).toMatch(/Tokens\d+ in, \d+ out/);

    // The raw events, one click away, and back.
    await page.getByRole('tab', { name: /Raw events/ }).click();
    expect(await page.locator('tr[data-event="TOOL_CALL_RESULT"]').count()).toBe(2);
    await page.getByRole('tab', { name: 'Trace' }).click();
    await tool.waitFor();
    expect(await page.getByRole('link', { name: "Open the task's conversation" }).count()).toBe(1);
  });
});

describe('sign-in', () => {
  /** Every sessionStorage and localStorage entry of the page, and the cookies its scripts can read. */
  const stored = (p: Page) =>
    p.evaluate(
      'JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage), document.cookie])',
    ) as Promise<string>;

  it('keeps no API key in the browser: the session is an HttpOnly cookie; a reload renews through it; sign-out ends it', async () => {
    const own = await browser.newContext();
    const p = await own.newPage();
    p.setDefaultTimeout(20_000);
    await signIn(p, apiUrl(), tenant.keys.member, 'member');
    await useAgentOn(p, tenant.agentId);
    expect(await stored(p)).not.toContain('ars_');
    expect(await stored(p)).not.toContain(tenant.keys.member);
    const [cookie, ...others] = await own.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({
      name: 'ars_console_session',
      httpOnly: true,
      sameSite: 'Strict',
      path: '/api/v1/auth/console',
    });
    expect(cookie!.value).not.toContain(tenant.keys.member);

    // A reload, and a new tab, sign in from the cookie: no key typed, none stored.
    await p.reload();
    await p.getByTestId('role').filter({ hasText: 'member' }).waitFor();
    await p
      .getByLabel('Agent', { exact: true })
      .locator(`option[value="${tenant.agentId}"]`)
      .waitFor({ state: 'attached' });
    expect(await stored(p)).not.toContain('ars_');
    const second = await own.newPage();
    await second.goto(`${apiUrl()}/console/`);
    await second.getByTestId('role').filter({ hasText: 'member' }).waitFor();
    await second.close();
    // A tab of an earlier console kept the key itself: its next load removes it.
    await p.evaluate(`sessionStorage.setItem('ars.console.apiKey', ${JSON.stringify(tenant.keys.member)})`);
    await p.reload();
    await p.getByTestId('role').filter({ hasText: 'member' }).waitFor();
    expect(await stored(p)).not.toContain('ars_');

    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByLabel('API key').waitFor();
    await eventually('the session cookie to be gone', async () => expect((await own.cookies()).length).toBe(0));
    await p.reload();
    await p.getByLabel('API key').waitFor();
    expect(await stored(p)).not.toContain('ars_');
    await own.close();
  });
});

describe('approvals inbox', () => {
  it('a member is refused a sensitive approval; the owner approves it', async () => {
    const sensitive = await createTenant({
      approval_required_tools: ['save_memory'],
      sensitive_tools: ['save_memory'],
    });
    const member = { token: await exchange(sensitive.keys.member), agentId: sensitive.agentId };
    const { taskId } = await startBackgroundRun(member, {
      messages: [{ role: 'user', content: '/tool save_memory {"content":"secret"}' }],
      mode: 'fast',
    });
    await waitForPending(member, taskId);
    const inbox = await browser.newContext();
    const p = await inbox.newPage();
    p.setDefaultTimeout(20_000);
    await signIn(p, apiUrl(), sensitive.keys.member, 'member');
    await p.getByRole('link', { name: 'Approvals' }).click();
    const card = p.locator('.card').filter({ hasText: 'save_memory' });
    await card.locator('.badge.sensitive').waitFor();
    // A member is offered no decision the service would refuse (it answers 403: test/e2e).
    expect(await card.locator('.note').textContent()).toContain('owner or admin');
    expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await p.getByRole('button', { name: 'Sign out' }).click();
    await signIn(p, apiUrl(), sensitive.keys.owner, 'owner');
    await p.getByRole('link', { name: 'Approvals' }).click();
    await card.getByLabel('Feedback (optional)').fill('fine by me');
    await card.getByRole('button', { name: 'Approve' }).click();
    await p.getByText('No approvals.').waitFor();
    await p.getByLabel('Show').selectOption('approved');
    expect(await p.locator('.card').filter({ hasText: 'save_memory' }).textContent()).toContain('fine by me');
    await inbox.close();
  });

  it('shows the command an approval waits on, approved by keyboard; the chat offers only the controls that apply', async () => {
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    // Long enough to open the chat and press Pause before it ends on a loaded machine (3 s was not, in CI);
    // the pause takes effect when the command ends.
    const command = 'echo inbox-check; sleep 10';
    const { taskId, runId } = await startBackgroundRun(member, {
      messages: [{ role: 'user', content: `/tool run_command ${JSON.stringify({ command })}` }],
      mode: 'fast',
    });
    await waitForPending(member, taskId);
    const own = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await own.newPage();
    page.setDefaultTimeout(20_000);
    // run_command is sensitive: the owner decides it, and sees the member's task in the chat.
    await signIn(page, apiUrl(), tenant.keys.owner, 'owner');
    // The chat: the task marked as waiting on you; the run waits for approval: Cancel only.
    await useAgentOn(page, tenant.agentId);
    const taskButton = page.locator('.task-list li button').filter({ hasText: 'inbox-check' });
    await taskButton.locator('.badge.needs-you').waitFor();
    expect(await taskButton.textContent()).toContain('Waiting for approval');
    await taskButton.click();
    const controls = page.getByRole('region', { name: 'Run controls' });
    await page.getByTestId('run-status').filter({ hasText: 'Waiting for approval' }).waitFor();
    await controls.getByRole('button', { name: 'Cancel' }).waitFor();
    expect(await controls.getByRole('button', { name: /Pause|Resume/ }).count()).toBe(0);

    // The inbox: the action in words with its command, the agent by name, who started it; `a` approves.
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = page.locator(`.card[data-approval-id]`).filter({ hasText: command });
    await card.waitFor();
    expect(await card.locator('.action-title').textContent()).toBe('Run a command in the sandbox');
    expect(await card.textContent()).toContain('Agent agent');
    expect(await card.getByTestId('started-by').textContent()).toMatch(/\S/);
    expect(await card.getByRole('link', { name: "Open the run's trace" }).getAttribute('href')).toBe(
      `#/inspect/${runId}`,
    );
    for (let i = 0; i < 20 && (await card.getAttribute('aria-current')) !== 'true'; i++) await page.keyboard.press('j');
    await screenshot(page, 'approvals');
    await page.keyboard.press('a');
    await card.waitFor({ state: 'detached' });

    // Back in the chat the run executes the command: Pause; paused: Resume; completed: no controls.
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    await controls.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'Paused' }).waitFor();
    expect(await controls.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    await controls.getByRole('button', { name: 'Resume' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'Completed' }).waitFor();
    expect(await controls.count()).toBe(0);
    // The finished task lists its runs with status, usage and a link to each trace.
    // The list is read again once the stream ends, so it may still show the run as running for a moment.
    const listed = page
      .locator(`.task-runs li[data-run="${runId}"]`)
      .filter({ hasText: /Completed .*\d+ tokens?, \d+ credits?/ });
    await listed.waitFor();
    expect(await listed.getByRole('link').getAttribute('href')).toBe(`#/inspect/${runId}`);
    await own.close();
  });
});

describe('administration', () => {
  it('an owner creates a key that is shown once and works, then revokes it; members see no admin screen and the api refuses them', async () => {
    const exchangeStatus = async (key: string) =>
      (
        await fetch(`${apiUrl()}/api/v1/auth/exchange/agent-token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ api_key: key }),
        })
      ).status;
    const admin = await browser.newContext();
    const p = await admin.newPage();
    p.setDefaultTimeout(20_000);
    await signIn(p, apiUrl(), tenant.keys.owner, 'owner');
    await p.getByRole('link', { name: 'Admin' }).click();
    await p.getByRole('link', { name: 'API keys' }).click();
    await p.getByLabel('For member').selectOption(tenant.users.member);
    await p.getByLabel('Key name').fill('console-test');
    await p.getByRole('button', { name: 'Create key' }).click();
    const key = (await p.getByLabel('New API key').textContent())!;
    expect(key).toMatch(/^ars_live_/);
    expect(await exchangeStatus(key)).toBe(200);
    const row = p.locator('table.keys tr').filter({ hasText: 'console-test' });
    expect(await row.textContent()).not.toContain(key);
    await screenshot(p, 'admin-api-keys');
    await row.getByRole('button', { name: 'Revoke key console-test' }).click();
    await row.getByText('revoked').waitFor();
    expect(await exchangeStatus(key)).toBe(401);
    await p.reload();
    await p.locator('table.keys').waitFor();
    expect(await p.getByLabel('New API key').count()).toBe(0);
    await admin.close();

    const member = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.member });
    await expect(member.admin.listApiKeys()).rejects.toBeInstanceOf(PermissionError);
    await expect(member.admin.createApiKey({ name: 'mine' })).rejects.toBeInstanceOf(PermissionError);
    const mp = await browser.newPage();
    await signIn(mp, apiUrl(), tenant.keys.member, 'member');
    expect(await mp.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await mp.close();
  });
});

describe('phone viewport', () => {
  it('the chat fits a phone screen and works with the keyboard', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    p.setDefaultTimeout(20_000);
    await p.goto(`${apiUrl()}/console/`);
    await p.keyboard.press('Tab');
    await p.keyboard.type(tenant.keys.owner);
    await p.keyboard.press('Enter');
    await p.getByTestId('role').filter({ hasText: 'owner' }).waitFor();
    await p.getByLabel('Agent', { exact: true }).selectOption(tenant.agentId);
    await p.getByRole('button', { name: 'New task' }).waitFor();
    expect(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(p, 'phone');
    await phone.close();
  });
});
