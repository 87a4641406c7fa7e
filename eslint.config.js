// @ts-check
import { readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/**
 * One data layer: only src/db reads and writes the database. Elsewhere code calls its
 * named operations, passing the `Db`/`Tx` handle along (type imports of src/db/client.ts
 * are fine); model types come re-exported from src/db too.
 */
const onlyDbTalksToPrisma =
  'Only src/db talks to Prisma: call (or add) a named operation in src/db; model types are re-exported there.';
const prismaImports = { group: ['@prisma/*', '**/generated/prisma/*'], message: onlyDbTalksToPrisma };
/** The client is created where a process starts (src/main) and nowhere else. */
const clientCreation = {
  group: ['**/db/client.ts'],
  importNames: ['createDb'],
  message: 'Only process entry points (src/main) create a Prisma client.',
};
/** Prisma model delegates (`db.run`, `tx.approvalGrant`…), read from the schema so a new model is covered too. */
const models = [
  ...readFileSync(new URL('./prisma/schema.prisma', import.meta.url), 'utf8').matchAll(/^model (\w+)/gm),
].map(([, m]) => m[0].toLowerCase() + m.slice(1));
const delegateMethods = [
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'create',
  'createMany',
  'createManyAndReturn',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'upsert',
  'delete',
  'deleteMany',
  'count',
  'aggregate',
  'groupBy',
];
const prismaQueries = [
  {
    selector: `CallExpression[callee.property.name=/^(${delegateMethods.join('|')})$/][callee.object.property.name=/^(${models.join('|')})$/]`,
    message: onlyDbTalksToPrisma,
  },
  {
    selector:
      'MemberExpression[property.name=/^\\$(transaction|queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe)$/]',
    message: onlyDbTalksToPrisma,
  },
];

/** Modules that must never load inside the Temporal workflow sandbox. */
const notInWorkflows = [
  { group: ['node:*'], message: 'Workflow code is deterministic: no Node APIs.' },
  // Not even types: the database's shapes reach workflows through src/shared and activity types.
  {
    group: ['@prisma/*', '**/generated/prisma/*', 'pg'],
    message: 'Workflows never touch the database; use an activity.',
    strict: true,
  },
  { group: ['express', 'jose', 'pino', 'ai', '@ai-sdk/*'], message: 'Server-side module: keep it out of workflows.' },
  {
    group: ['@temporalio/client', '@temporalio/activity', '@temporalio/worker'],
    message: 'Workflows import only @temporalio/workflow (and @temporalio/common).',
  },
  {
    group: [
      '**/api/*',
      '**/db/*',
      '**/auth/*',
      '**/build/*',
      '**/connections/*',
      '**/embedded/*',
      '**/outbound/*',
      '**/processes/*',
      '**/admin/*',
      '**/config.ts',
    ],
    message: 'Workflows import only src/shared and activity types.',
  },
  {
    group: ['**/activities/*', '!**/activities/index.ts'],
    message: 'Import activity types from activities/index.ts only.',
  },
];
const nodeBuiltins = [
  'fs',
  'path',
  'crypto',
  'child_process',
  'http',
  'https',
  'net',
  'os',
  'process',
  'worker_threads',
  'stream',
  'util',
  'events',
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'src/generated/',
      'dist/',
      'packages/*/dist/',
      'packages/*/src/generated/',
      '.data/',
      '.tools/',
      '.scratch/',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [prismaImports, clientCreation] }],
      'no-restricted-syntax': ['error', ...prismaQueries],
    },
  },
  {
    files: ['src/main/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [prismaImports] }] },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code is deterministic: no Node APIs.' })),
          // `import type` is erased at build time, so activity types are allowed.
          patterns: notInWorkflows.map(({ strict, ...p }) => ({ ...p, allowTypeImports: !strict })),
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
          patterns: notInWorkflows.slice(0, 5).map(({ strict, ...p }) => ({
            ...p,
            message: 'src/shared is pure: workflows import it.',
            allowTypeImports: !strict,
          })),
        },
      ],
    },
  },
  {
    // Routes parse HTTP and call use cases (src/api/services); what they need from the database is a use case.
    files: ['src/api/routes/**/*.ts', 'src/api/widget/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/db/*'], message: 'Routes call use cases (src/api/services), which call src/db.' },
            prismaImports,
            clientCreation,
          ],
        },
      ],
    },
  },
  {
    // Use cases take a caller and typed input and throw DomainError; only the routes and errors.ts know HTTP.
    files: ['src/api/services/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['express', 'cookie'].map((name) => ({ name, message: 'Use cases know no HTTP.' })),
          patterns: [
            {
              group: ['**/api/errors.ts', '../errors.ts', '../validation.ts', '../route.ts'],
              message: 'Use cases throw DomainError (src/shared/domain-error.ts); src/api/errors.ts maps it to HTTP.',
            },
            prismaImports,
            clientCreation,
          ],
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
        {
          patterns: [
            {
              group: ['**/activities/*', '**/api/*', '**/workflows/*'],
              message: 'src/sandbox is called by activities; put what both need in src/shared.',
            },
            prismaImports,
            clientCreation,
          ],
        },
      ],
    },
  },
);
