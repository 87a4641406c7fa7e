/**
 * widget.js in a real browser (Debian's chromium, driven by playwright-core): a page on
 * another origin than the api embeds it with one script tag, chats, answers human-input
 * prompts, survives a reload mid-run; a page on an origin the key does not allow shows
 * an error state and gets no session. Screenshots go to test-artifacts/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { findRunState } from '../../src/db/runs.ts';
import { apiUrl } from '../support/http.ts';
import { testDb } from '../support/tenant.ts';
import { createWidgetTenant, type WidgetTenant } from '../support/widget.ts';
import { eventually } from '../support/eventually.ts';

const CHROMIUM = '/usr/bin/chromium';
const artifacts = path.join(projectRoot, 'test-artifacts');

/** A customer's page: nothing but a heading and the widget's script tag. */
function hostPage(key: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>Our shop</h1><script src="${apiUrl()}/widget.js" data-widget-key="${key}" data-title="Shop assistant" async></script></body></html>`;
}

/** Serves `html` on localhost (a different origin from the api's 127.0.0.1) at a free port. */
async function serve(html: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

let browser: Browser;
let tenant: WidgetTenant;
let allowed: { server: Server; origin: string };
let refused: { server: Server; origin: string };

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(artifacts, { recursive: true });
  let key = '';
  allowed = await serve(() => hostPage(key));
  refused = await serve(() => hostPage(key));
  tenant = await createWidgetTenant([allowed.origin]);
  key = tenant.key;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  for (const s of [allowed, refused]) await new Promise((r) => s?.server.close(r));
});

const widget = (page: Page) => page.locator('[data-ars-widget]');
const stored = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(Object.entries(localStorage).map(([k, v]) => [k, JSON.parse(v) as Record<string, unknown>])),
  );

/** Waits until the widget's current run has ended (the Send button is usable again). */
async function waitIdle(page: Page): Promise<void> {
  await eventually(
    'the Send button to be enabled',
    async () => expect(await page.getByRole('button', { name: 'Send', exact: true }).last().isEnabled()).toBe(true),
    { timeout: 30_000 },
  );
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('Your message').fill(text);
  await page.getByLabel('Your message').press('Enter');
}

describe('widget.js in Chromium', () => {
  it('chats from an allowed origin: streams the answer, answers prompts, survives a reload mid-run', async () => {
    const page = await browser.newPage();
    await page.goto(allowed.origin);
    await widget(page).and(page.locator('[data-state="ready"]')).waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Open chat' }).click();
    await eventually('the widget dialog', async () =>
      expect(await page.getByRole('dialog', { name: 'Shop assistant' }).isVisible()).toBe(true),
    );

    await say(page, 'Hello, what do you sell?');
    await eventually('one answer', async () => expect(await page.locator('.msg.assistant').count()).toBe(1), {
      timeout: 30_000,
    });
    await waitIdle(page);
    expect((await page.locator('.msg.assistant').first().textContent())!.length).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(artifacts, 'widget-answer.png') });

    // A text prompt, answered in place.
    await say(
      page,
      `Need a name.\n/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: 'Your name?' })}`,
    );
    const nameField = page.getByRole('textbox', { name: 'Your name?' });
    await nameField.waitFor({ timeout: 30_000 });
    await nameField.fill('Ada');
    await page.locator('.prompt').getByRole('button', { name: 'Send' }).click();
    await waitIdle(page);
    expect(await page.locator('.prompt').count()).toBe(0);

    // A number prompt: an empty answer is refused (a 422 whose detail is a list) and said as such; then answered.
    await say(
      page,
      `How many?\n/tool request_user_input ${JSON.stringify({ input_type: 'number', prompt: 'How many?' })}`,
    );
    const countField = page.getByRole('spinbutton', { name: 'How many?' });
    await countField.waitFor({ timeout: 30_000 });
    await page.locator('.prompt').getByRole('button', { name: 'Send' }).click();
    await eventually('the validation alert', async () =>
      expect(await page.getByRole('alert').last().textContent()).toBe('value must be a number'),
    );
    await countField.fill('3');
    await page.locator('.prompt').getByRole('button', { name: 'Send' }).click();
    await waitIdle(page);
    expect(await page.locator('.prompt').count()).toBe(0);

    // A choice prompt; the page reloads while the run waits for it.
    await say(
      page,
      `Pick one.\n/tool request_user_input ${JSON.stringify({ input_type: 'choice', prompt: 'Pick a colour', choices: ['red', 'blue'] })}`,
    );
    await page.getByRole('button', { name: 'blue' }).waitFor({ timeout: 30_000 });
    const before = Object.values(await stored(page))[0]!;
    const shownBefore = await page.locator('.msg:not(.error)').allTextContents(); // an error said on the page is not part of the conversation
    expect(before).toMatchObject({
      running: true,
      taskId: expect.any(String),
      lastEventId: expect.stringMatching(/^run_/),
    });
    await page.screenshot({ path: path.join(artifacts, 'widget-prompt.png') });

    await page.reload();
    await widget(page).and(page.locator('[data-state="ready"]')).waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Open chat' }).click();
    await page.getByText('Pick a colour', { exact: true }).waitFor({ timeout: 15_000 });
    // The conversation came back as it was: stored messages, and the answer streamed before the reload once.
    await eventually('the messages shown before the reload', async () =>
      expect(await page.locator('.msg:not(.error)').allTextContents()).toEqual(shownBefore),
    );
    expect(await page.locator('.msg.user').count()).toBe(4);
    await page.screenshot({ path: path.join(artifacts, 'widget-after-reload.png') });
    await page.getByRole('button', { name: 'blue' }).click();
    await waitIdle(page);
    const after = Object.values(await stored(page))[0]!;
    expect(after).toMatchObject({ running: false, taskId: before.taskId });
    await page.screenshot({ path: path.join(artifacts, 'widget-finished.png') });

    // The server agrees: the visitor's one task, its last run completed with the answer the browser gave.
    const tasks = await testDb().task.findMany({ where: { userId: String(after.visitorId) } });
    expect(tasks.map((t) => t.id)).toEqual([before.taskId]);
    const runId = String(after.lastEventId).split(':')[0]!;
    expect((await findRunState(testDb(), runId))?.status).toBe('completed');
    await page.close();
  });

  it('shows an error state and gets no session on an origin the key does not allow', async () => {
    const usersBefore = await testDb().user.count({ where: { orgId: tenant.orgId } });
    const page = await browser.newPage();
    const sessions: number[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/api/v1/widget/session')) sessions.push(res.status());
    });
    await page.goto(refused.origin);
    await widget(page).and(page.locator('[data-state="error"]')).waitFor({ state: 'attached', timeout: 15_000 });
    await page.getByRole('button', { name: 'Open chat' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/not available/);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true);
    const state = Object.values(await stored(page));
    expect(state.every((s) => !s.visitorToken)).toBe(true);
    expect(sessions.every((s) => s !== 200)).toBe(true);
    expect(await testDb().user.count({ where: { orgId: tenant.orgId } })).toBe(usersBefore); // no visitor was made
    await page.screenshot({ path: path.join(artifacts, 'widget-refused-origin.png') });
    await page.close();
  });
});
