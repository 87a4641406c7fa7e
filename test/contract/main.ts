import { createDb } from '../../src/db/client.ts';
import { startStack } from '../support/stack.ts';
import { contractRateLimits } from './rate-limits.ts';
import { runSchemathesis } from './run-schemathesis.ts';
import { seedContractTenant } from './seed.ts';

/**
 * `npm run contract`: the longer contract run. Starts the real stack (as the tests do),
 * seeds a tenant with real objects and runs schemathesis with every check.
 * CONTRACT_MAX_EXAMPLES (default 50) sets test cases per operation and phase.
 */
const maxExamples = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 50);
const stack = await startStack({
  purpose: 'test',
  env: { LOG_LEVEL: 'warn', MODEL_PROVIDER: 'offline', ...contractRateLimits },
});
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
