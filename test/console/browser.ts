/** Headless Chromium for the console tests: Debian's chromium driven by playwright-core, screenshots kept as artifacts. */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../src/config.ts';
import { ensureConsoleBuilt } from '../../src/build/console.ts';

/** Debian's package (`apt-get install chromium`); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(projectRoot, 'test-artifacts', 'console');

/** Builds the console if it is missing or stale (the api serves dist/console from disk), then starts the browser. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set CHROMIUM_PATH)`);
  await ensureConsoleBuilt();
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Opens the console and signs in with `apiKey`; resolves when the shell shows the caller's role. */
export async function signIn(page: Page, baseUrl: string, apiKey: string, role: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('role').filter({ hasText: role }).waitFor();
}
