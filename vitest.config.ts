import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/close-clients.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Test files share one Temporal server, one database and one service stack.
    fileParallelism: false,
  },
});
