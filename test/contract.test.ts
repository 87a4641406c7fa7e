import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchemathesis } from './contract/run-schemathesis.ts';
import { contractRateLimits } from './contract/rate-limits.ts';
import { seedContractTenant, type ContractSeed } from './contract/seed.ts';
import { startApiProcess, type ApiProcess } from './support/api-process.ts';
import { testDb } from './support/tenant.ts';
import { projectRoot } from '../src/config.ts';

/**
 * A short schemathesis run (`--checks all`) with a real JWT, `X-Agent-Id` and real ids:
 * the OpenAPI document and the behaviour agree. It talks to one more api replica of the
 * test stack whose rate limits are raised, so fuzzing reaches the handlers rather than
 * spending the minute's budget (429s are documented and accepted, but hide the checks
 * behind them). `npm run contract` is the longer run, and runs against the default limits too.
 */
describe('the API contract (schemathesis)', () => {
  let api: ApiProcess;
  beforeAll(async () => {
    api = await startApiProcess(contractRateLimits);
  });
  let seed: ContractSeed | undefined;
  afterAll(async () => {
    await seed?.close();
    await api?.close();
  });

  it('finds no failure and no 5xx', async () => {
    seed = await seedContractTenant(testDb(), api.url);
    const { exitCode, output } = await runSchemathesis({
      apiUrl: api.url,
      seed,
      maxExamples: 3,
      seedValue: 1,
      skipRunCoverage: true,
    });
    console.log(`contract (raised limits): ${output.match(/\d+ generated[^\n]*/)?.[0]}`);
    // The whole report, for a failure whose message is cut short.
    mkdirSync(path.join(projectRoot, 'test-artifacts'), { recursive: true });
    writeFileSync(path.join(projectRoot, 'test-artifacts', 'contract.log'), output);
    const summary = output.slice(output.lastIndexOf('SUMMARY'));
    // Every operation of the document was exercised.
    const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(document.paths).flatMap((ops) => Object.keys(ops)).length;
    expect(operations).toBeGreaterThanOrEqual(52);
    expect(summary, output.slice(-20_000)).toMatch(new RegExp(`Tested: ${operations}\\b`));
    expect(summary, output.slice(-20_000)).toMatch(/\d+ generated, \d+ passed/);
    expect(exitCode, output.slice(-20_000)).toBe(0);
  }, 240_000);
});
