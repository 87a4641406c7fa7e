import { createDb } from '../../src/db/client.ts';
import { startStack } from '../support/stack.ts';
import { runSchemathesis } from './run-schemathesis.ts';
import { seedContractTenant } from './seed.ts';

/**
 * `npm run contract`: the longer contract run. Starts the real stack (as the tests do),
 * seeds a tenant with real objects and runs schemathesis with every check.
 * CONTRACT_MAX_EXAMPLES (default 50) sets test cases per operation and phase.
 */
/** Raised so fuzzing exercises handlers rather than 429s (429 is documented and accepted either way). */
const contractRateLimits = { RATE_LIMIT_RUNS_PER_MINUTE: '100000', RATE_LIMIT_TASKS_PER_MINUTE: '100000' };
const maxExamples = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 50);
const stack = await startStack({ purpose: 'test', env: { LOG_LEVEL: 'warn', MODEL_PROVIDER: 'offline', ...contractRateLimits } });
let exitCode = 1;
try {
  const db = createDb(stack.databaseUrl, 2);
  const seed = await seedContractTenant(db, stack.apiUrl);
  await db.$disconnect();
  exitCode = (await runSchemathesis({ apiUrl: stack.apiUrl, seed, maxExamples, echo: true })).exitCode;
} finally {
  await stack.teardown();
}
process.exit(exitCode);
