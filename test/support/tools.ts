import { MockActivityEnvironment } from '@temporalio/testing';
import { inject } from 'vitest';
import { createRunToolActivities } from '../../src/activities/run-tool.ts';
import type { ActivityDeps } from '../../src/activities/deps.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import type { ToolOutcome } from '../../src/shared/run-workflow-types.ts';
import { call } from './http.ts';
import { testDb } from './tenant.ts';

let deps: ActivityDeps | undefined;

/** What the worker gives activities, on the test database. */
export function toolDeps(): ActivityDeps {
  deps ??= {
    db: testDb(),
    config: loadConfig({
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      JWT_SECRET: inject('jwtSecret'),
      SECRETS_KEY: inject('secretsKey'),
      LOG_LEVEL: 'silent',
    }),
    logger: createLogger('test-tools', 'silent'),
    env: process.env,
    deltaFlushMs: 0,
  };
  return deps;
}

export interface ToolScope {
  runId: string;
  taskId: string;
  orgId: string;
  agentId: string;
}

/**
 * Calls a tool through the real `runTool` activity (catalog lookup, argument
 * validation, the implementation, event emission), in Temporal's activity test
 * environment instead of a worker. Calling again with the same `toolCallId` is
 * what an activity retry does.
 */
export async function runTool(
  scope: ToolScope,
  name: string,
  args: unknown,
  toolCallId = `call_${crypto.randomUUID()}`,
): Promise<ToolOutcome> {
  const { runTool: activity } = createRunToolActivities(toolDeps());
  return new MockActivityEnvironment().run(activity, { ...scope, toolCallId, name, args });
}

/** The output of a call that must succeed. */
export async function toolOutput<T = Record<string, unknown>>(
  scope: ToolScope,
  name: string,
  args: unknown,
  toolCallId?: string,
): Promise<T> {
  const outcome = await runTool(scope, name, args, toolCallId);
  if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.output as T;
}

/** Starts a background run with the offline model (no tools asked for), for its run and task ids. */
export async function startQuietRun(token: string, agentId: string, orgId: string): Promise<ToolScope> {
  const res = await call('POST', '/api/run', {
    token,
    agentId,
    body: { messages: [{ role: 'user', content: 'hello' }], stream: false },
  });
  if (res.status !== 202) throw new Error(`POST /api/run: ${res.status} ${await res.text()}`);
  const run = (await res.json()) as { id: string; task_id: string };
  return { runId: run.id, taskId: run.task_id, orgId, agentId };
}
