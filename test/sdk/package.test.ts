import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';

/** The published shape of @agent-run/client: it builds, its exports exist, and its output runs in a browser (no Node imports). */
const dir = path.join(projectRoot, 'packages', 'client');
const dist = path.join(dir, 'dist');

function files(at: string): string[] {
  return readdirSync(at, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(at, e.name)) : [path.join(at, e.name)]));
}

describe('the @agent-run/client package', () => {
  it('builds with tsc into ESM with declarations that import only itself and eventsource-parser', () => {
    execFileSync(process.execPath, [path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(dir, 'tsconfig.json')], { stdio: 'inherit' });
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type: string; sideEffects: boolean; exports: { '.': { types: string; import: string } }; dependencies: Record<string, string> };
    expect(pkg.type).toBe('module');
    expect(pkg.sideEffects).toBe(false);
    expect(Object.keys(pkg.dependencies)).toEqual(['eventsource-parser']);
    for (const target of Object.values(pkg.exports['.'])) expect(existsSync(path.join(dir, target)), target).toBe(true);
    const output = files(dist).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'));
    expect(output.length).toBeGreaterThan(10);
    const imported = new Set<string>();
    for (const file of output) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/\brequire\(|process\.|Buffer\b|__dirname/);
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) imported.add(specifier!.startsWith('.') ? '<relative>' : specifier!);
    }
    expect([...imported].sort()).toEqual(['<relative>', 'eventsource-parser']);
  });
});
