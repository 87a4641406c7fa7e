import type { TestProject } from 'vitest/node';
import { freeListenPort } from './support/ports.ts';
import { startStack, type Stack } from './support/stack.ts';
import { bundleWorkflowsOnce } from './support/workflow-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    apiUrl: string;
    temporalAddress: string;
    taskQueue: string;
    jwtSecret: string;
    secretsKey: string;
    heartbeatMs: number;
    /** Where the service posts Slack replies (SLACK_API_URL): test/e2e/flows.test.ts listens there. */
    slackApiPort: number;
    /** Today's workflow code, bundled once: every worker the tests start loads it (WORKFLOW_BUNDLE), every replay uses it. */
    workflowBundle: string;
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
  const shared = sharedStack();
  const stack = await shared.stack;
  shared.users++;
  provide(project, stack, await shared.slackPort);
  return async () => {
    if (--shared.users === 0) await stack.teardown();
  };
}

/**
 * Both test projects (vitest.config.ts) run this setup; they share one stack, started by the first
 * and torn down by the last (the setups run in vitest's one main process).
 */
function sharedStack(): SharedStack {
  const holder = globalThis as { arsTestStack?: SharedStack };
  if (!holder.arsTestStack) {
    const slackPort = freeListenPort();
    holder.arsTestStack = { stack: slackPort.then(startTestStack), slackPort, users: 0 };
  }
  return holder.arsTestStack;
}

interface SharedStack {
  stack: Promise<Stack>;
  /** A loopback port for the fake Slack Web API, chosen before the stack starts (the operator's SLACK_API_URL). */
  slackPort: Promise<number>;
  users: number;
}

function startTestStack(slackPort: number): Promise<Stack> {
  return bundleWorkflowsOnce().then(() =>
    startStack({
      purpose: 'test',
      env: {
        HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
        MODEL_PROVIDER: 'offline',
        // The whole suite is one client address and few users: limits that are not under test stay out of the way
        // (test/e2e/rate-limits.test.ts and edge.test.ts test each limit on api processes of their own).
        RATE_LIMIT_EVENTS_PER_MINUTE: '100000',
        RATE_LIMIT_MEMORIES_PER_MINUTE: '100000',
        RATE_LIMIT_APPROVALS_PER_MINUTE: '100000',
        EXCHANGE_FAILURES_PER_ADDRESS: '100000',
        FLOW_FAILURES_PER_ADDRESS: '100000',
        EXCHANGE_FAILURES_PER_KEY: '100000',
        SSE_MAX_STREAMS_PER_USER: '1000',
        WIDGET_RATE_LIMIT_PER_ADDRESS: '100000',
        FLOW_EVENTS_PER_MINUTE: '100000',
        // Webhook retries in tenths of seconds rather than seconds to an hour (test/e2e/webhooks.test.ts).
        WEBHOOK_RETRY_INITIAL_MS: '300',
        WEBHOOK_RETRY_MAX_MS: '1500',
        WEBHOOK_DISPATCH_INTERVAL_MS: '200',
        // Their receivers listen on 127.0.0.1 (test/unit/outbound-post.test.ts checks the refusal).
        OUTBOUND_PRIVATE_TARGETS: 'allow',
        // Messaging flows post their answers to a fake Slack that test/e2e/flows.test.ts runs.
        SLACK_API_URL: `http://127.0.0.1:${slackPort}/api`,
      },
    }),
  );
}

function provide(project: TestProject, stack: Stack, slackPort: number): void {
  project.provide('databaseUrl', stack.databaseUrl);
  project.provide('apiUrl', stack.apiUrl);
  project.provide('temporalAddress', stack.temporalAddress);
  project.provide('taskQueue', stack.taskQueue);
  project.provide('jwtSecret', stack.jwtSecret);
  project.provide('secretsKey', stack.secretsKey);
  project.provide('heartbeatMs', HEARTBEAT_MS);
  project.provide('workflowBundle', process.env.WORKFLOW_BUNDLE!);
  project.provide('slackApiPort', slackPort);
}
