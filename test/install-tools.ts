/**
 * Installs the tools only the tests use: schemathesis, for the contract tests. `npm run setup -- --tests`
 * runs this file, so the runtime tree (src/) knows nothing of test tools. A machine that cannot install
 * one still gets its setup: only the tests that need it fail (they install it themselves).
 */
import { ensureSchemathesis } from './contract/schemathesis.ts';

const log = (m: string) => console.log(`setup: ${m}`);

try {
  log(`schemathesis: ${ensureSchemathesis(log)}`);
} catch (err) {
  log(
    `schemathesis not installed (only \`npm run contract\` and test/contract.test.ts need it): ${(err as Error).message.split('\n')[0]}`,
  );
}
