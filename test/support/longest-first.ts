import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files, slowest first (measured on two cores). A fresh clone has no timings cached, so
 * without this list one of them could start last and run alone at the end of its tier while the
 * other worker idles.
 */
const LONGEST = [
  'test/chaos.test.ts',
  'test/e2e/start-command.test.ts',
  'test/bench.test.ts',
  'test/bench-tenants.test.ts',
  'test/admin.test.ts',
  'test/cli/commands.test.ts',
  'test/e2e/agent-runtime.test.ts',
  'test/sandbox.test.ts',
  'test/cli/run.test.ts',
  'test/admin-widget-keys.test.ts',
];

const rank = (spec: TestSpecification) => {
  const i = LONGEST.findIndex((file) => spec.moduleId.endsWith(file));
  return i === -1 ? LONGEST.length : i;
};

/** The usual order (tier, then project, then cached timings), with the known long files of a tier first. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const tier = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return [...sorted].sort((a, b) => tier(a) - tier(b) || rank(a) - rank(b));
  }
}
