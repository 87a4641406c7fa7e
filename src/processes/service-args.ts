import path from 'node:path';
import { projectRoot } from '../config.ts';

/**
 * What a service's start command sets in its environment besides its flags. The worker uses two malloc arenas, not
 * one per thread: with one each, what its threads (the workflow thread, Temporal's core) freed after a burst stayed
 * with the process (10,000 waiting runs: 375 MiB of RSS with them, 322 MiB with two).
 */
export function serviceEnv(name: 'api' | 'worker'): Record<string, string> {
  return name === 'worker' ? { MALLOC_ARENA_MAX: '2' } : {};
}

/**
 * The node arguments that run the api or worker from source under the tsx loader (`npm start`, the tests), with the
 * flags its start command in package.json gives it: the worker's threads load src/worker/thread-preload.ts.
 */
export function tsxServiceArgs(name: 'api' | 'worker'): string[] {
  const preload = ['--expose-gc', '--import', path.join(projectRoot, 'src', 'worker', 'thread-preload.ts')];
  return [
    '--import',
    'tsx',
    ...(name === 'worker' ? preload : []),
    path.join(projectRoot, 'src', 'main', `${name}.ts`),
  ];
}
