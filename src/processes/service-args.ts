import path from 'node:path';
import { projectRoot } from '../config.ts';

/**
 * The node arguments that run the api or worker from source under the tsx loader (`npm start`, the tests), with the
 * flags its start command in package.json gives it: the worker collects its garbage when quiet (src/worker/quiet-gc.ts).
 */
export function tsxServiceArgs(name: 'api' | 'worker'): string[] {
  const quietGc = ['--expose-gc', '--import', path.join(projectRoot, 'src', 'worker', 'quiet-gc.ts')];
  return [
    '--import',
    'tsx',
    ...(name === 'worker' ? quietGc : []),
    path.join(projectRoot, 'src', 'main', `${name}.ts`),
  ];
}
