import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first.ts';

/**
 * Files whose outcome depends on timing: they cut or kill processes of their own and expect the rest to
 * notice within a time, count requests per client address in their stack's database, or drive a browser or
 * a terminal. They run one at a time, on a stack of their own: `npm test` runs this tier in a second vitest
 * process beside the others (test/run-tiers.ts), so no other file's requests or processes reach theirs.
 * Files that only start an api, workers or a stack of their own and check only the outcome (chaos, the
 * compose replay, worker versioning), share the two workers of the rest.
 */
const EXCLUSIVE = [
  'test/contract.test.ts',
  'test/sandbox-state.test.ts',
  'test/e2e/outage.test.ts',
  'test/e2e/retries.test.ts',
  'test/e2e/listen-reconnect.test.ts',
  'test/e2e/drain.test.ts',
  'test/e2e/scale-out.test.ts',
  'test/e2e/run-control.test.ts',
  'test/e2e/rate-limits.test.ts',
  'test/e2e/observability.test.ts',
  'test/e2e/widget-limits.test.ts',
  'test/e2e/widget-browser.test.ts',
  // A real terminal (tmux): keystrokes and screen captures on a schedule.
  'test/cli/terminal.test.ts',
  // Drives headless Chromium.
  'test/console/console.test.ts',
  'test/console/admin.test.ts',
];

/** Pure code, the run workflow on fake activities (its own dev server) and replays of saved histories: no stack, seconds (`npm run test:unit`). */
const UNIT = ['test/unit/**/*.test.ts', 'test/workflows/**/*.test.ts', 'test/replay.test.ts'];

export default defineConfig({
  // Tests use the SDK's source, never its possibly stale dist/.
  resolve: {
    alias: { '@agent-run/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) },
  },
  test: {
    setupFiles: ['test/support/close-clients.ts'],
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT, globalSetup: ['test/unit-setup.ts'], sequence: { groupOrder: 0 } },
      },
      // Every test file makes its own org, users and agents on the one shared stack, so most can run two at a time.
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...EXCLUSIVE],
          globalSetup: ['test/global-setup.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'exclusive',
          include: EXCLUSIVE,
          globalSetup: ['test/global-setup.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
