import { spawnSync } from 'node:child_process';
import { HOST_TOOL_PATH } from './limits.ts';

const has = (tool: string) =>
  spawnSync(tool, ['--version'], { env: { PATH: HOST_TOOL_PATH }, stdio: 'ignore' }).status === 0;

/** Installs Debian packages with apt-get when we are root and have it; true when every tool is there afterwards. */
function aptInstall(
  tools: readonly string[],
  packages: readonly string[],
  log: (m: string) => void,
  what: string,
): boolean {
  if (tools.every(has)) {
    log(`${what}: found`);
    return true;
  }
  const canInstall = process.getuid?.() === 0 && has('apt-get');
  if (canInstall) {
    log(`${what}: installing ${packages.join(', ')} with apt-get`);
    const env = { PATH: HOST_TOOL_PATH, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['install', '-y', ...packages], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (tools.every(has)) {
      log(`${what}: installed`);
      return true;
    }
  }
  return false;
}

/**
 * The sandbox needs bubblewrap (Debian/Ubuntu package `bubblewrap`). Setup installs
 * it with apt-get when it is missing and we are root; otherwise it only warns:
 * the service runs without it, but run_command answers SANDBOX_UNAVAILABLE.
 */
export function ensureBubblewrap(log: (m: string) => void): void {
  if (aptInstall(['bwrap'], ['bubblewrap'], log, 'bubblewrap')) return;
  log(
    'WARNING: bubblewrap (bwrap) is not installed, so the sandbox tool run_command will refuse to run. ' +
      'Install it as root: apt-get install -y bubblewrap (or your distribution\'s "bubblewrap" package).',
  );
}

/**
 * Agents with `sandbox.network` get a network of their sandbox's own through slirp4netns,
 * filtered with nftables (src/sandbox/sandbox-network.ts). Without them, such commands are
 * refused (SANDBOX_NETWORK_UNAVAILABLE), never run on the worker's network.
 */
export function ensureSandboxNetworking(log: (m: string) => void): void {
  if (aptInstall(['slirp4netns', 'nft'], ['slirp4netns', 'nftables'], log, 'sandbox network (slirp4netns, nftables)'))
    return;
  log(
    'WARNING: slirp4netns or nftables is not installed, so run_command refuses agents with sandbox.network. ' +
      'Install them as root: apt-get install -y slirp4netns nftables.',
  );
}
