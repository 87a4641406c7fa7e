import type { SandboxIdentity } from './identity.ts';
import { BLOCK_FD, INFO_FD } from './run-process.ts';
import { SANDBOX_HOME, SANDBOX_WORKSPACE, type SandboxLimits } from './limits.ts';

export interface BwrapCommandInput {
  /** The workspace directory on the host, bound read-write at /workspace. */
  workspaceDir: string;
  /** From systemMountArgs(): read-only /usr, /bin…, a minimal /etc. */
  systemMounts: string[];
  /** The sandbox's own passwd/group/hosts/hostname files (identityFiles()). */
  identityFiles: Record<'passwd' | 'group' | 'hosts' | 'hostname', string>;
  identity: SandboxIdentity;
  /** bwrap ≥ 0.8 can forbid nested user namespaces (unprivileged mode only). */
  canDisableUserns: boolean;
  /** A seccomp filter is passed on file descriptor 3 (host support probed at start). */
  seccompFd?: number;
  /**
   * The agent's `sandbox.network`: the sandbox's own namespace gets a filtered route out
   * (sandbox-network.ts), attached while bwrap holds the command at --block-fd, and this
   * resolv.conf. Never the worker's own network. Otherwise only a private loopback.
   */
  network: false | { resolvConf: string };
  limits: Pick<SandboxLimits, 'cpuSeconds' | 'maxProcesses' | 'maxFileBytes' | 'memoryBytes' | 'tmpBytes'>;
  command: string;
}

/**
 * The environment of a sandboxed command, and nothing else: none of the worker's
 * variables (database URL, model keys, JWT secret) ever reach it. No BASH_ENV or ENV
 * either: those name a file the shell would run before the command. The user's own
 * bin directory comes last, so a file in the workspace never stands in for a system
 * command an approver saw by name.
 */
export function sandboxEnvironment(): Record<string, string> {
  return {
    PATH: `/usr/local/bin:/usr/bin:/bin:${SANDBOX_HOME}/.local/bin`,
    HOME: SANDBOX_HOME,
    USER: 'sandbox',
    LOGNAME: 'sandbox',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: '/tmp',
  };
}

/**
 * Resource limits, set (soft and hard) by the first shell before it execs the
 * shell that runs the command, so the command cannot raise them. Inside a
 * user namespace (unprivileged worker) the process limit counts the sandbox's own
 * processes; in root mode it counts the sandbox's uid.
 */
export function ulimitPrefix(limits: BwrapCommandInput['limits']): string {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  return [
    `ulimit -t ${limits.cpuSeconds}`,
    `ulimit -u ${limits.maxProcesses}`,
    // bash counts -f and -v in 1024-byte units outside POSIX mode.
    `ulimit -f ${limits.maxFileBytes === 0 ? 0 : kib(limits.maxFileBytes)}`,
    `ulimit -v ${kib(limits.memoryBytes)}`,
    'ulimit -c 0',
    'ulimit -n 1024',
  ].join(' && ');
}

/**
 * `bwrap … bash -c <command>` with: no network (or a filtered one of its own), IPC, UTS or PID sharing, the
 * process killed with its parent, a new session (no TIOCSTI into the worker's
 * terminal), a cleared environment, read-only system files, the workspace
 * read-write as the working directory, a private size-capped /tmp, a fresh /proc
 * and a minimal /dev.
 */
export function bwrapArgs(input: BwrapCommandInput): string[] {
  const { identity, limits } = input;
  const rootMode = identity.hostUid !== undefined;
  const args = [
    // As root, bwrap must not make a user namespace: the sandbox drops to its own
    // host uid with setpriv instead (see identity.ts). Unprivileged, --unshare-all
    // includes the user namespace bwrap needs.
    ...(rootMode
      ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
      : [
          '--unshare-all',
          '--unshare-user',
          '--uid',
          String(identity.uid),
          '--gid',
          String(identity.uid),
          ...(input.canDisableUserns ? ['--disable-userns'] : []),
        ]),
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    '--clearenv',
    ...Object.entries(sandboxEnvironment()).flatMap(([k, v]) => ['--setenv', k, v]),
    ...input.systemMounts,
    ...Object.entries(input.identityFiles).flatMap(([name, file]) => ['--ro-bind', file, `/etc/${name}`]),
    // Name resolution only matters with a network; the pid is reported, and the command held, while it is attached.
    ...(input.network
      ? [
          '--ro-bind',
          input.network.resolvConf,
          '/etc/resolv.conf',
          '--info-fd',
          String(INFO_FD),
          '--block-fd',
          String(BLOCK_FD),
        ]
      : []),
    '--bind',
    input.workspaceDir,
    SANDBOX_WORKSPACE,
    '--chdir',
    SANDBOX_WORKSPACE,
    '--perms',
    '1777',
    '--size',
    String(limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--dir',
    '/var',
    '--symlink',
    '../tmp',
    '/var/tmp',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...(input.seccompFd === undefined ? [] : ['--seccomp', String(input.seccompFd)]),
  ];
  if (rootMode) args.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID');
  const drop = rootMode
    ? [
        'setpriv',
        `--reuid=${identity.hostUid}`,
        `--regid=${identity.hostUid}`,
        '--clear-groups',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--no-new-privs',
        '--',
      ]
    : [];
  // "$1" is the command, passed as an argument so it is never re-quoted. Neither shell is a
  // login or interactive shell, and neither reads a profile or rc file: HOME is in the shared
  // workspace, where anyone with write_file could plant one, and what runs must be exactly
  // the command an approver was shown.
  const shell = [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    `${ulimitPrefix(limits)} && exec bash --noprofile --norc -c "$1"`,
    'sandbox',
    input.command,
  ];
  return [...args, ...drop, ...shell];
}
