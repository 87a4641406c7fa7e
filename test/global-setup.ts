import type { TestProject } from 'vitest/node';
import { startStack } from './support/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    apiUrl: string;
    temporalAddress: string;
    taskQueue: string;
    jwtSecret: string;
    heartbeatMs: number;
  }
}

/** Test heartbeats come every second, so a test can watch them without waiting 15 s. */
const HEARTBEAT_MS = 1000;

/**
 * The real stack for every test file (test/support/stack.ts): a Temporal dev server,
 * a fresh PostgreSQL database, and the api and worker started as processes
 * exactly as the start command starts them.
 */
export default async function setup(project: TestProject) {
  const stack = await startStack({
    purpose: 'test',
    env: {
      HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      MODEL_PROVIDER: 'offline',
    },
  });

  project.provide('databaseUrl', stack.databaseUrl);
  project.provide('apiUrl', stack.apiUrl);
  project.provide('temporalAddress', stack.temporalAddress);
  project.provide('taskQueue', stack.taskQueue);
  project.provide('jwtSecret', stack.jwtSecret);
  project.provide('heartbeatMs', HEARTBEAT_MS);

  return stack.teardown;
}
