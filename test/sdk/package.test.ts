import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';

/** The published shape of @agent-run/client: it builds, its exports exist, and its output runs in a browser (no Node imports). */
const dir = path.join(projectRoot, 'packages', 'client');
const dist = path.join(dir, 'dist');

function files(at: string): string[] {
  return readdirSync(at, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(at, e.name)) : [path.join(at, e.name)],
  );
}

describe('the @agent-run/client package', () => {
  it('builds with tsc into ESM with declarations that import only itself and eventsource-parser', () => {
    execFileSync(
      process.execPath,
      [path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(dir, 'tsconfig.json')],
      { stdio: 'inherit' },
    );
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      type: string;
      sideEffects: boolean;
      exports: { '.': { types: string; import: string } };
      dependencies: Record<string, string>;
    };
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
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g))
        imported.add(specifier!.startsWith('.') ? '<relative>' : specifier!);
    }
    expect([...imported].sort()).toEqual(['<relative>', 'eventsource-parser']);
  });

  it('bundles for the browser, and a bundle that uses one helper leaves the client out (tree-shaking)', async () => {
    const bundle = async (contents: string) => {
      const out = await build({
        stdin: { contents, resolveDir: dir, loader: 'js' },
        bundle: true,
        platform: 'browser',
        format: 'esm',
        minify: true,
        write: false,
        absWorkingDir: dir,
        alias: { '@agent-run/client': './dist/index.js' },
      });
      return out.outputFiles[0]!.text;
    };
    const whole = await bundle(
      "import { AgentRunClient } from '@agent-run/client'; console.log(new AgentRunClient({ baseUrl: 'x', token: 't' }));",
    );
    expect(whole).toContain('/api/tasks');
    const helper = await bundle(
      "import { isTerminalEvent } from '@agent-run/client'; console.log(isTerminalEvent({ type: 'RUN_FINISHED' }));",
    );
    expect(helper).not.toContain('/api/tasks');
    expect(helper.length).toBeLessThan(whole.length / 5);
  });
});
