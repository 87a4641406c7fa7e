/**
 * Runs the `agent-run` bin as a user would (node_modules/.bin/agent-run, with node_modules/.bin
 * first on PATH as npx puts it), pointed at the test stack by environment variables.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
export const binDir = path.join(root, 'node_modules/.bin');
export const cliBin = path.join(binDir, 'agent-run');

/** Environment for the CLI: the stack's url, `apiKey`, `agent`, and a config path of its own (never ~/.config). */
export function cliEnv(apiKey: string, agent: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? tmpdir(),
    AGENT_RUN_URL: inject('apiUrl'),
    AGENT_RUN_API_KEY: apiKey,
    AGENT_RUN_AGENT: agent,
    AGENT_RUN_CONFIG: path.join(mkdtempSync(path.join(tmpdir(), 'agent-run-cli-')), 'config.json'),
    NO_COLOR: '1',
    ...extra,
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `agent-run args…` to its end (stdin closed, so never a terminal). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cliBin,
      args,
      { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number')
          reject(new Error(`agent-run ${args.join(' ')}: ${err.message}\n${stderr}`));
        else resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** The NDJSON lines of `stdout`, parsed. */
export function ndjson(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
