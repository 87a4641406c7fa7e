import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/config.ts';

/** Pinned schemathesis, the contract tester `npm run contract` and test/contract.test.ts run. */
export const SCHEMATHESIS_VERSION = '4.32.5';
const venv = path.join(projectRoot, '.tools', 'venv');
export const schemathesisBinary = path.join(venv, 'bin', 'st');

/** Installs schemathesis into the project-local venv `.tools/venv` unless that version is there. */
export function ensureSchemathesis(log: (m: string) => void = () => {}): string {
  const stamp = path.join(venv, `.schemathesis-${SCHEMATHESIS_VERSION}`);
  if (existsSync(schemathesisBinary) && existsSync(stamp)) return schemathesisBinary;
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} into ${venv}`);
  if (!existsSync(path.join(venv, 'bin', 'python')))
    execFileSync('python3', ['-m', 'venv', venv], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(
    path.join(venv, 'bin', 'python'),
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`],
    {
      // pip's stderr is noisy with index warnings; on failure it is in the thrown error.
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  writeFileSync(stamp, SCHEMATHESIS_VERSION);
  return schemathesisBinary;
}
