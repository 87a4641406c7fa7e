import { existsSync } from 'node:fs';
import { realpath, rm, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { bwrapArgs } from './bwrap-command.ts';
import { listWorkspaceFiles, readWorkspaceFile, writeWorkspaceFile, type WorkspaceFiles } from './file-ops.ts';
import { identityFiles, type SandboxIdentity } from './identity.ts';
import { HOST_TOOL_PATH, type SandboxLimits } from './limits.ts';
import { runProcess, type CommandResult } from './run-process.ts';
import type { SandboxLock } from './sandbox-lock.ts';
import { saveSnapshot, type SnapshotResult } from './snapshots.ts';
import { chownTree, ensureWorkspace, type WorkspaceStatus } from './workspace.ts';
import { asToolError } from './fs-errors.ts';
import type { WorkspaceDisk } from './workspace-disk.ts';
import { overQuotaNote, workspaceBytes, type OverQuota } from './disk-usage.ts';
import { ToolError } from '../shared/tools/tool-error.ts';
import { CommandCgroups, inCgroups, type CgroupHost } from './cgroups.ts';
import {
  attachNetwork,
  hostIpv4Addresses,
  networkUnavailable,
  type AttachedNetwork,
  type NetworkSupport,
} from './sandbox-network.ts';

/** What every sandbox of one worker process shares (see SandboxHost). */
export interface SandboxEnvironment {
  db: Db;
  logger: Logger;
  limits: SandboxLimits;
  lock: SandboxLock;
  /** Where the generated /etc/passwd etc. live on the host. */
  identityDir: string;
  /** Throws a ToolError when bubblewrap is missing. */
  tooling(): SandboxTooling;
  /** Whether WorkspaceDisks can be mounted on this host (probed once). */
  disksAvailable(): Promise<boolean>;
}

/** What the host's bubblewrap and kernel support, probed once. */
export interface SandboxTooling {
  systemMounts: string[];
  canDisableUserns: boolean;
  /** The seccomp BPF program, when the host supports it. */
  seccomp?: Buffer;
  /** Where per-command cgroups go, when the host lets us make them. */
  cgroups?: CgroupHost;
  /** Whether commands of agents with `sandbox.network` can get their filtered network here. */
  network: NetworkSupport;
  /** The resolv.conf bound into networked sandboxes. */
  resolvConf: string;
}

export interface OperationOptions {
  /** Cancels waiting for the lock and kills a running command. */
  signal?: AbortSignal;
  heartbeat?: () => void;
  /** Told when the operation had to create or restore the workspace first. */
  onStatus?: (status: Exclude<WorkspaceStatus, { status: 'sandbox_ready' }>) => Promise<void>;
}

export interface CommandOptions extends OperationOptions {
  timeoutMs?: number;
  /** A network of the sandbox's own, public addresses only (the agent's `sandbox.network`); default off. */
  network?: boolean;
  maxOutputBytes?: number;
}

/**
 * The persistent sandbox of one agent in one org: a workspace directory on this
 * host, bound at /workspace into every command. Operations run one at a time
 * (SandboxLock); each first makes sure the workspace exists here (ensureWorkspace).
 */
export class Sandbox {
  constructor(
    private readonly env: SandboxEnvironment,
    readonly orgId: string,
    readonly agentId: string,
    /** The workspace directory on the host. */
    readonly dir: string,
    /** Who the sandbox's processes are; resolved (its uid allocated) on first use. */
    readonly identity: () => Promise<SandboxIdentity>,
    /** The workspace's own file system (disk quota); `dir` is inside its mount point. */
    readonly disk?: WorkspaceDisk,
  ) {}

  /** `bash -c <command>` in bubblewrap, in /workspace, reading no profile or rc file (see bwrapArgs for the isolation). */
  runCommand(command: string, opts: CommandOptions = {}): Promise<CommandResult> {
    const { limits } = this.env;
    const timeoutMs = Math.min(opts.timeoutMs ?? limits.defaultTimeoutSeconds * 1000, limits.maxTimeoutSeconds * 1000);
    return this.exclusive(opts, async (files) => {
      const { systemMounts, canDisableUserns, seccomp, cgroups, network, resolvConf } = this.env.tooling();
      const identity = await this.identity();
      // Refused rather than run with the worker's own network.
      if (opts.network && !network.ok) throw networkUnavailable(network.reason);
      const overQuota = await this.overQuota(files);
      const args = bwrapArgs({
        workspaceDir: files.root,
        systemMounts,
        identityFiles: identityFiles(this.env.identityDir, identity.uid),
        identity,
        canDisableUserns,
        network: opts.network ? { resolvConf } : false,
        seccompFd: seccomp ? 3 : undefined,
        limits: overQuota ? { ...limits, maxFileBytes: 0 } : limits,
        command,
      });
      const groups =
        cgroups &&
        CommandCgroups.create(cgroups, {
          memoryBytes: limits.memoryBytes,
          maxProcesses: limits.maxProcesses,
          cpus: limits.cpus,
        });
      // A promise, so a network still being attached when the command ends (timeout, cancel) is closed too.
      let attached: Promise<AttachedNetwork> | undefined;
      try {
        const [file, argv] = groups ? inCgroups(groups, 'bwrap', args) : ['bwrap', args];
        const result = await runProcess(file, argv, {
          timeoutMs,
          maxOutputBytes: opts.maxOutputBytes ?? limits.maxOutputBytes,
          signal: opts.signal,
          env: { PATH: HOST_TOOL_PATH },
          fd3: seccomp,
          beforeRun: opts.network
            ? async (pid) => void (await (attached = attachNetwork(pid, hostIpv4Addresses())))
            : undefined,
        });
        const oomKills = groups?.oomKills() ?? 0;
        if (overQuota) result.stderr += `\n${overQuotaNote(overQuota)}`;
        if (oomKills > 0)
          result.stderr += `\n[out of memory: the sandbox's memory limit (${limits.memoryBytes} bytes for all its processes) killed ${oomKills} process(es)]`;
        return result;
      } finally {
        await attached?.then(
          (network) => network.close(),
          () => undefined,
        );
        await groups?.remove();
      }
    });
  }

  readFile(path: string, opts: OperationOptions & { maxBytes?: number } = {}) {
    return this.exclusive(opts, (files) =>
      asToolError(path, readWorkspaceFile(files, path, opts.maxBytes ?? this.env.limits.readMaxBytes)),
    );
  }

  writeFile(path: string, content: string, opts: OperationOptions = {}) {
    return this.exclusive(opts, async (files) => {
      const over = await this.overQuota(files, Buffer.byteLength(content));
      if (over)
        throw new ToolError(
          `${path}: the workspace is over its disk quota (${over.usedBytes} of ${over.quotaBytes} bytes); delete files first`,
          'EDQUOT',
        );
      return asToolError(path, writeWorkspaceFile(files, path, content, this.env.limits.writeMaxBytes));
    });
  }

  listFiles(path: string, listing: { recursive?: boolean; limit?: number } = {}, opts: OperationOptions = {}) {
    const options = { recursive: listing.recursive ?? false, limit: listing.limit ?? 1000 };
    return this.exclusive(opts, (files) => asToolError(path, listWorkspaceFiles(files, path, options)));
  }

  /** Saves the workspace to the database (after a run). A workspace this host does not have is not restored just to be saved again. */
  snapshot(runId: string | undefined, opts: OperationOptions = {}): Promise<SnapshotResult> {
    const { limits } = this.env;
    return this.env.lock.run(
      this.lockKey,
      () =>
        withHeartbeat(opts.heartbeat, async () => {
          await this.mountDisk(false);
          if (!existsSync(this.dir)) return { snapshot_id: null, skipped: 'no_workspace' as const };
          const dir = await realpath(this.dir);
          return saveSnapshot(
            this.env.db,
            { orgId: this.orgId, agentId: this.agentId, runId, dir },
            { maxBytes: limits.snapshotMaxBytes, keep: limits.snapshotsKept },
          );
        }),
      opts,
    );
  }

  /**
   * Forgets this host's copy of the workspace (under the lock), so the next operation
   * restores the latest snapshot: called when this host takes the sandbox over from
   * another, whose copy was the live one while ours went stale.
   */
  discardLocalCopy(): Promise<boolean> {
    return this.env.lock.run(this.lockKey, async () => {
      await this.mountDisk(false);
      if (!existsSync(this.dir)) return false;
      await rm(this.dir, { recursive: true, force: true });
      return true;
    });
  }

  private get lockKey(): string {
    return `${this.orgId}/${this.agentId}`;
  }

  private exclusive<T>(opts: OperationOptions, fn: (files: WorkspaceFiles) => Promise<T>): Promise<T> {
    return this.env.lock.run(
      this.lockKey,
      () => withHeartbeat(opts.heartbeat, async () => fn(await this.prepare(opts))),
      opts,
    );
  }

  /** Makes sure the workspace is here and belongs to the sandbox's uid. Under the lock. */
  private async prepare(opts: OperationOptions): Promise<WorkspaceFiles> {
    const ownerUid = (await this.identity()).hostUid;
    await this.mountDisk(true);
    const status = await ensureWorkspace(
      this.env.db,
      { orgId: this.orgId, agentId: this.agentId, dir: this.dir, ownerUid },
      this.env.logger,
    );
    if (status.status !== 'sandbox_ready') {
      await opts
        .onStatus?.(status)
        .catch((err: unknown) => this.env.logger.warn({ err: String(err) }, 'sandbox status not reported'));
    } else if (ownerUid !== undefined && (await stat(this.dir)).uid !== ownerUid) {
      // SANDBOX_UID_BASE changed since the workspace was made, or it predates allocated uids: hand it to the new uid.
      await chownTree(this.dir, ownerUid);
    }
    return { root: await realpath(this.dir), ownerUid };
  }

  /** Without a disk image, the quota is checked before each write (see disk-usage.ts); with one, the file system enforces it. */
  private async overQuota(files: WorkspaceFiles, adding = 0): Promise<OverQuota | undefined> {
    const quotaBytes = this.env.limits.diskBytes;
    if (quotaBytes === 0 || (this.disk && (await this.env.disksAvailable()))) return undefined;
    const usedBytes = await workspaceBytes(files.root);
    return usedBytes + adding > quotaBytes ? { usedBytes, quotaBytes } : undefined;
  }

  /** The workspace's disk is mounted (made when `create`), when it has one and the host can mount. */
  private async mountDisk(create: boolean): Promise<void> {
    if (this.disk && (await this.env.disksAvailable())) await this.disk.mount(create);
  }
}

const HEARTBEAT_MS = 5000;

/** Heartbeats while an operation runs (a restore, a tarball, a long command), so Temporal knows the activity is alive. */
async function withHeartbeat<T>(heartbeat: (() => void) | undefined, fn: () => Promise<T>): Promise<T> {
  const beat = heartbeat ? setInterval(heartbeat, HEARTBEAT_MS) : undefined;
  try {
    return await fn();
  } finally {
    clearInterval(beat);
  }
}
