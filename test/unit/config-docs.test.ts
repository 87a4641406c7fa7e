import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIG_DOCS, configTable, withConfigTable } from '../../scripts/config-docs.ts';

describe('docs/configuration.md', () => {
  it('holds the table src/config.ts describes (run `npm run docs:config` after changing a variable)', () => {
    const doc = readFileSync(CONFIG_DOCS, 'utf8');
    expect(doc, 'docs/configuration.md is stale: run npm run docs:config').toBe(withConfigTable(doc));
  });

  it('cannot be generated while a variable has no description', () => {
    const shape = { DESCRIBED: z.string().default('x').describe('Says what it does.'), BARE: z.string().optional() };
    expect(() => configTable(shape)).toThrow(/no \.describe\(\) in src\/config\.ts for BARE/);
  });

  it('shows defaults, enum values and pipes as the table needs them', () => {
    const table = configTable({
      MODE: z.enum(['a', 'b']).default('a').describe('Picks a | b.'),
      UNSET: z.string().optional().describe('Nothing by default.'),
      EMPTY: z.string().default('').describe('Empty by default.'),
    });
    expect(table.split('\n').slice(2)).toEqual([
      '| `MODE` | `a` | Picks a \\| b. One of `a`, `b`. |',
      '| `UNSET` | — | Nothing by default. |',
      '| `EMPTY` | (empty) | Empty by default. |',
    ]);
  });
});
