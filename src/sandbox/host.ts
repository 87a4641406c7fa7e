import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { ToolError } from '../shared/tools/tool-error.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { resolveDatabaseUrl } from '../embedded/postgres.ts';
import { sandboxIdentity, type SandboxIdentity } from './identity.ts';
import { HOST_TOOL_PATH } from './limits.ts';
import { Sandbox, type SandboxEnvironment, type SandboxTooling } from './sandbox.ts';
import { detectCgroups } from './cgroups.ts';
import { seccompFilter } from './seccomp.ts';
import { canMountDisks, WorkspaceDisk } from './workspace-disk.ts';
import { SandboxLock } from './sandbox-lock.ts';
import { systemMountArgs } from './system-mounts.ts';
import { probeNetworkSupport, SANDBOX_RESOLV_CONF } from './sandbox-network.ts';

export interface SandboxHostDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** The database for the cross-process lock; resolved from the config (embedded PostgreSQL included) when absent. */
  databaseUrl?: string;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * The sandboxes of this worker host. Workspaces live on local disk, one per
 * (org, agent), shared by all that agent's runs in that org: with a disk quota
 * (root worker, SANDBOX_DISK_BYTES > 0) in `<DATA_DIR>/disks/<org_id>/<agent_id>/workspace/`
 * on the loop-mounted image `<DATA_DIR>/disks/<org_id>/<agent_id>.ext4` (see
 * WorkspaceDisk), otherwise in `<DATA_DIR>/workspaces/<org_id>/<agent_id>/`.
 *
 * Host affinity: worker processes sharing a DATA_DIR are one sandbox host (they share
 * the workspaces and the PostgreSQL lock). With several hosts, a lease says which one
 * holds each sandbox and the workflow sends its operations to that host's own task
 * queue (src/activities/sandbox-lease.ts, src/workflows/sandbox-routing.ts).
 */
export class SandboxHost {
  readonly workspacesDir: string;
  readonly disksDir: string;
  private readonly env: SandboxEnvironment;
  private readonly workerIsRoot = process.getuid?.() === 0;
  private probed?: SandboxTooling;
  private disks?: Promise<boolean>;
  /** Sandbox identities by `org/agent`: a slot never changes once allocated. */
  private readonly identities = new Map<string, Promise<SandboxIdentity>>();

  constructor(private readonly deps: SandboxHostDeps) {
    this.workspacesDir = path.join(deps.config.dataDir, 'workspaces');
    this.disksDir = path.join(deps.config.dataDir, 'disks');
    let url: Promise<string> | undefined;
    const resolve = () =>
      resolveDatabaseUrl(deps.config).catch((err: unknown) => {
        url = undefined; // try again on the next operation
        throw err;
      });
    const databaseUrl = () => (url ??= deps.databaseUrl ? Promise.resolve(deps.databaseUrl) : resolve());
    this.env = {
      db: deps.db,
      logger: deps.logger,
      limits: deps.config.sandbox,
      lock: new SandboxLock(databaseUrl),
      identityDir: path.join(deps.config.dataDir, 'sandbox'),
      tooling: () => this.tooling(),
      disksAvailable: () => this.disksAvailable(),
    };
  }

  sandbox(orgId: string, agentId: string): Sandbox {
    // Ids become directory names: never let one climb out of the workspaces directory.
    if (!SAFE_ID.test(orgId) || !SAFE_ID.test(agentId)) throw new Error(`unsafe sandbox id ${orgId}/${agentId}`);
    const { uidBase, diskBytes, diskImages } = this.deps.config.sandbox;
    const identity = () => this.identityOf(orgId, agentId, uidBase);
    if (!this.workerIsRoot || diskBytes === 0 || !diskImages)
      return new Sandbox(this.env, orgId, agentId, path.join(this.workspacesDir, orgId, agentId), identity);
    const disk = new WorkspaceDisk(
      path.join(this.disksDir, orgId, `${agentId}.ext4`),
      path.join(this.disksDir, orgId, agentId),
      diskBytes,
    );
    return new Sandbox(this.env, orgId, agentId, path.join(disk.mountPoint, 'workspace'), identity, disk);
  }

  private identityOf(orgId: string, agentId: string, uidBase: number): Promise<SandboxIdentity> {
    const key = `${orgId}/${agentId}`;
    let identity = this.identities.get(key);
    if (!identity) {
      identity = sandboxIdentity(this.deps.db, orgId, agentId, uidBase, this.workerIsRoot);
      this.identities.set(key, identity);
      identity.catch(() => this.identities.delete(key)); // a database error is not remembered
    }
    return identity;
  }

  /** Probes (and logs) what this host supports; a host without bubblewrap logs why run_command will refuse. */
  async probe(): Promise<void> {
    try {
      this.tooling();
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
    }
    const { diskBytes, diskImages } = this.deps.config.sandbox;
    if (this.workerIsRoot && diskBytes > 0 && diskImages) await this.disksAvailable();
  }

  /** Whether workspace disks can be mounted here; without, the quota is only a usage check before writes (disk-usage.ts). */
  private disksAvailable(): Promise<boolean> {
    return (this.disks ??= canMountDisks().then((probe) => {
      if (probe.ok)
        this.deps.logger.info(
          { diskBytes: this.deps.config.sandbox.diskBytes },
          'sandbox workspaces get their own disk',
        );
      else
        this.deps.logger.warn(
          { reason: probe.reason },
          'sandbox workspace disks cannot be mounted here: the disk quota is only checked before writes',
        );
      return probe.ok;
    }));
  }

  /** bubblewrap (and setpriv as root) must be installed and able to make namespaces; probed until it works, on commands only. */
  private tooling() {
    if (this.probed) return this.probed;
    const help = spawnSync('bwrap', ['--help'], { env: { PATH: HOST_TOOL_PATH }, encoding: 'utf8' });
    if (help.error || help.status !== 0) {
      throw new ToolError(
        'run_command is unavailable: the sandbox host has no bubblewrap (bwrap); an operator must install it',
        'SANDBOX_UNAVAILABLE',
      );
    }
    if (this.workerIsRoot && spawnSync('setpriv', ['--help'], { env: { PATH: HOST_TOOL_PATH } }).status !== 0) {
      throw new ToolError(
        'run_command is unavailable: the sandbox host has no setpriv (util-linux)',
        'SANDBOX_UNAVAILABLE',
      );
    }
    // Containers often forbid namespaces (Docker without CAP_SYS_ADMIN or with its default seccomp profile).
    const namespaces = this.workerIsRoot
      ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts']
      : ['--unshare-all', '--unshare-user'];
    const probe = spawnSync(
      'bwrap',
      [...namespaces, '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'],
      {
        env: { PATH: HOST_TOOL_PATH },
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    if (probe.status !== 0) {
      const reason = (probe.stderr || String(probe.error ?? '')).trim().split('\n')[0];
      this.deps.logger.error({ reason }, 'bubblewrap cannot create a sandbox on this host');
      throw new ToolError(
        `run_command is unavailable: the sandbox host cannot create namespaces (${reason})`,
        'SANDBOX_UNAVAILABLE',
      );
    }
    const seccomp = this.probeSeccomp(namespaces);
    // --disable-userns needs the user namespace bwrap makes unprivileged; as root the seccomp filter refuses new namespaces.
    const canDisableUserns = !this.workerIsRoot && help.stdout.includes('--disable-userns');
    const cgroups = this.workerIsRoot ? detectCgroups() : { reason: 'the worker does not run as root' };
    if ('reason' in cgroups)
      this.deps.logger.warn(
        { reason: cgroups.reason },
        'no cgroups for sandbox commands: memory and processes are limited per process only',
      );
    const network = probeNetworkSupport(this.workerIsRoot);
    if (!network.ok)
      this.deps.logger.warn(
        { reason: network.reason },
        'sandbox commands of agents with sandbox.network will be refused: no filtered network on this host',
      );
    const resolvConf = path.join(this.env.identityDir, 'resolv.conf');
    mkdirSync(this.env.identityDir, { recursive: true, mode: 0o755 });
    writeFileSync(resolvConf, SANDBOX_RESOLV_CONF, { mode: 0o644 });
    this.probed = {
      systemMounts: systemMountArgs(),
      canDisableUserns,
      seccomp,
      cgroups: 'reason' in cgroups ? undefined : cgroups,
      network,
      resolvConf,
    };
    this.deps.logger.info(
      {
        seccomp: seccomp !== undefined,
        disableUserns: canDisableUserns,
        rootMode: this.workerIsRoot,
        cgroups: 'reason' in cgroups ? false : `v${cgroups.version}`,
        network: network.ok,
      },
      'sandbox confinement available',
    );
    return this.probed;
  }

  /** The seccomp filter, when this architecture has one and the kernel and bwrap accept it. */
  private probeSeccomp(namespaces: string[]): Buffer | undefined {
    const filter = seccompFilter();
    if (!filter) return undefined;
    // bwrap reads the program from a descriptor: hand it the file written beside the identity files.
    mkdirSync(this.env.identityDir, { recursive: true, mode: 0o755 });
    const file = path.join(this.env.identityDir, 'seccomp.bpf');
    writeFileSync(file, filter, { mode: 0o644 });
    const fd = openSync(file, 'r');
    try {
      const probe = spawnSync('bwrap', [...namespaces, '--ro-bind', '/', '/', '--seccomp', '3', 'true'], {
        env: { PATH: HOST_TOOL_PATH },
        stdio: ['ignore', 'ignore', 'pipe', fd],
        encoding: 'utf8',
        timeout: 10_000,
      });
      if (probe.status === 0) return filter;
      this.deps.logger.warn(
        { reason: probe.stderr.trim().split('\n')[0] },
        'the sandbox seccomp filter is not supported on this host',
      );
      return undefined;
    } finally {
      closeSync(fd);
    }
  }
}

const hosts = new WeakMap<object, SandboxHost>();

/** One SandboxHost per worker process (per dependencies object), so its in-process queue is shared by every activity. */
export function sandboxHostFor(deps: SandboxHostDeps): SandboxHost {
  let host = hosts.get(deps);
  if (!host) hosts.set(deps, (host = new SandboxHost(deps)));
  return host;
}
