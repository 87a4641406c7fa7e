import { spawn } from 'node:child_process';
import { createDb } from '../../src/db/client.ts';
import { stopChild, waitUntil } from '../../src/processes/lifecycle.ts';
import { freeListenPort } from '../support/ports.ts';
import { serviceArgs, startStack } from '../support/stack.ts';
import { contractRateLimits } from './rate-limits.ts';
import { runSchemathesis } from './run-schemathesis.ts';
import { seedContractTenant } from './seed.ts';

/**
 * `npm run contract`: the longer contract run. Starts the real stack (as the tests do) with the
 * default rate limits, one more api replica on it with raised limits, seeds a tenant with real
 * objects and runs schemathesis with every check twice: against the raised limits (the logic
 * behind them), then against the defaults (what a client meets, 429s included).
 * CONTRACT_MAX_EXAMPLES (default 50) sets test cases per operation and phase of the first run,
 * CONTRACT_DEFAULT_LIMITS_MAX_EXAMPLES (default 10) of the second. CONTRACT_RUN_COVERAGE=1 adds the
 * coverage phase of the run-starting operations (hundreds of runs each: about 12 minutes more).
 */
const maxExamples = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 50);
const defaultLimitsMaxExamples = Number(process.env.CONTRACT_DEFAULT_LIMITS_MAX_EXAMPLES ?? 10);
const env = { LOG_LEVEL: 'warn', MODEL_PROVIDER: 'offline' };
const stack = await startStack({ purpose: 'test', env });
const raisedPort = await freeListenPort();
const raised = spawn(process.execPath, serviceArgs('api', 'tsx'), {
  env: {
    ...process.env,
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    JWT_SECRET: stack.jwtSecret,
    SECRETS_KEY: stack.secretsKey,
    API_PORT: String(raisedPort),
    WORKER_METRICS_PORT: '0',
    ...env,
    ...contractRateLimits,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const raisedUrl = `http://127.0.0.1:${raisedPort}`;
const results: string[] = [];
let exitCode = 1;
let closeReceiver = async () => {};
try {
  await waitUntil(async () => (await fetch(`${raisedUrl}/healthz`).catch(() => undefined))?.ok === true, 90_000, 'api');
  const db = createDb(stack.databaseUrl, 2);
  const seed = await seedContractTenant(db, raisedUrl);
  await db.$disconnect();
  closeReceiver = seed.close;
  const runs = [
    { name: 'raised rate limits', apiUrl: raisedUrl, maxExamples },
    { name: 'default rate limits', apiUrl: stack.apiUrl, maxExamples: defaultLimitsMaxExamples },
  ];
  exitCode = 0;
  for (const run of runs) {
    console.log(`\n### schemathesis against ${run.name} (${run.maxExamples} examples per operation and phase)\n`);
    const result = await runSchemathesis({
      apiUrl: run.apiUrl,
      seed,
      maxExamples: run.maxExamples,
      echo: true,
      skipRunCoverage: process.env.CONTRACT_RUN_COVERAGE !== '1',
    });
    results.push(`${run.name}: exit ${result.exitCode}, ${summaryLine(result.output)}`);
    exitCode ||= result.exitCode;
  }
} finally {
  await closeReceiver();
  await stopChild(raised);
  await stack.teardown();
}
console.log(`\n${results.join('\n')}`);
process.exit(exitCode);

/** The "N generated, M passed…" and "… in Ns" lines of schemathesis' summary. */
function summaryLine(output: string): string {
  const summary = output.slice(output.lastIndexOf('SUMMARY'));
  const cases = summary.match(/\d+ generated[^\n]*/)?.[0] ?? 'no test cases';
  const total = summary.match(/=+ ([^=\n]* in [\d.]+s) =+/)?.[1] ?? '';
  return `${cases}; ${total}`;
}
