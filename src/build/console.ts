import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONSOLE_DIST } from '../api/console.ts';
import { projectRoot } from '../config.ts';

/**
 * Builds the web console (console/) into dist/console with esbuild: one minified script, one
 * stylesheet and index.html. The SDK is bundled from its source, so the page never runs a stale
 * packages/client/dist. A hash of every input is kept next to the output, so setup skips an
 * up-to-date build.
 */
const sourceDir = path.join(projectRoot, 'console');
const sdkSource = path.join(projectRoot, 'packages', 'client', 'src');
const stampFile = path.join(CONSOLE_DIST, '.source-hash');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${path.sep}node_modules${path.sep}`))
    .sort();
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of [
    ...filesUnder(sourceDir),
    ...filesUnder(sdkSource),
    path.join(projectRoot, 'package-lock.json'),
  ]) {
    hash.update(path.relative(projectRoot, file)).update(readFileSync(file));
  }
  return hash.digest('hex');
}

/** True when dist/console is missing or was built from other sources. */
export function consoleIsStale(): boolean {
  return !existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== sourceHash();
}

/** Builds the console (esbuild is a development dependency: production images build it in their build stage). */
export async function buildConsole(): Promise<void> {
  const { build } = await import('esbuild');
  rmSync(CONSOLE_DIST, { recursive: true, force: true });
  mkdirSync(CONSOLE_DIST, { recursive: true });
  await build({
    entryPoints: { main: path.join(sourceDir, 'src', 'main.tsx'), styles: path.join(sourceDir, 'styles.css') },
    outdir: CONSOLE_DIST,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    alias: { '@agent-run/client': path.join(sdkSource, 'index.ts') },
    legalComments: 'none',
    logLevel: 'warning',
  });
  writeFileSync(path.join(CONSOLE_DIST, 'index.html'), readFileSync(path.join(sourceDir, 'index.html')));
  writeFileSync(stampFile, sourceHash());
}

/** Builds the console unless its output is up to date; returns whether it built. */
export async function ensureConsoleBuilt(): Promise<boolean> {
  if (!consoleIsStale()) return false;
  await buildConsole();
  return true;
}
