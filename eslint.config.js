// @ts-check
import tseslint from 'typescript-eslint';

/** Modules that must never load inside the Temporal workflow sandbox. */
const notInWorkflows = [
  { group: ['node:*'], message: 'Workflow code is deterministic: no Node APIs.' },
  { group: ['@prisma/*', '**/generated/prisma/*', 'pg'], message: 'Workflows never touch the database; use an activity.' },
  { group: ['express', 'jose', 'pino', 'ai', '@ai-sdk/*'], message: 'Server-side module: keep it out of workflows.' },
  { group: ['@temporalio/client', '@temporalio/activity', '@temporalio/worker'], message: 'Workflows import only @temporalio/workflow (and @temporalio/common).' },
  { group: ['**/api/*', '**/db/*', '**/infra/*', '**/auth/*', '**/admin/*', '**/config.ts'], message: 'Workflows import only src/shared and activity types.' },
  { group: ['**/activities/*', '!**/activities/index.ts'], message: 'Import activity types from activities/index.ts only.' },
];
const nodeBuiltins = ['fs', 'path', 'crypto', 'child_process', 'http', 'https', 'net', 'os', 'process', 'worker_threads', 'stream', 'util', 'events'];

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', 'dist/', '.data/', '.tools/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code is deterministic: no Node APIs.' })),
          // `import type` is erased at build time, so activity types are allowed.
          patterns: notInWorkflows.map((p) => ({ ...p, allowTypeImports: true })),
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'src/shared is pure: workflows import it.' })),
          patterns: notInWorkflows.slice(0, 5).map((p) => ({ ...p, message: 'src/shared is pure: workflows import it.', allowTypeImports: true })),
        },
      ],
    },
  },
  {
    // The sandbox is a layer below the activities that drive it: shared types live in src/shared.
    files: ['src/sandbox/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/activities/*', '**/api/*', '**/workflows/*'], message: 'src/sandbox is called by activities; put what both need in src/shared.' }] },
      ],
    },
  },
);
