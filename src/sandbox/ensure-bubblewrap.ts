import { spawnSync } from 'node:child_process';
import { HOST_TOOL_PATH } from './limits.ts';

const hasBwrap = () => spawnSync('bwrap', ['--version'], { env: { PATH: HOST_TOOL_PATH }, stdio: 'ignore' }).status === 0;

/**
 * The sandbox needs bubblewrap (Debian/Ubuntu package `bubblewrap`). Setup installs
 * it with apt-get when it is missing and we are root; otherwise it only warns:
 * the service runs without it, but run_command answers SANDBOX_UNAVAILABLE.
 */
export function ensureBubblewrap(log: (m: string) => void): void {
  if (hasBwrap()) return log('bubblewrap: found');
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { env: { PATH: HOST_TOOL_PATH }, stdio: 'ignore' }).status === 0;
  if (canInstall) {
    log('bubblewrap: installing with apt-get');
    const env = { PATH: HOST_TOOL_PATH, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['install', '-y', 'bubblewrap'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (hasBwrap()) return log('bubblewrap: installed');
  }
  log(
    'WARNING: bubblewrap (bwrap) is not installed, so the sandbox tool run_command will refuse to run. ' +
      'Install it as root: apt-get install -y bubblewrap (or your distribution\'s "bubblewrap" package).',
  );
}
