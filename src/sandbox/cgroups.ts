import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isAlive } from '../processes/lifecycle.ts';

/**
 * Per-command control groups: the memory, process count and CPU share of one
 * sandboxed command and everything it starts, counted together (rlimits count
 * per process, so 64 processes could each use the whole memory limit). The
 * command's first process joins them before it execs bubblewrap, so nothing
 * runs outside. Created below the worker's own cgroups, removed after the command.
 * cgroup v2 (one hierarchy) and v1 (one per controller) are both handled; a host
 * where neither is writable keeps the rlimits only.
 */
export interface CgroupLimits {
  memoryBytes: number;
  maxProcesses: number;
  /** CPU bandwidth in CPUs (0.5 = half of one core). */
  cpus: number;
}

type Controller = 'memory' | 'pids' | 'cpu';
const CGROUP_ROOT = '/sys/fs/cgroup';
const PERIOD_US = 100_000;

/** Where this process's groups live, per controller (one directory for all with v2). */
export interface CgroupHost {
  version: 1 | 2;
  parents: Record<Controller, string>;
}

/** The worker's own cgroup directories, with an `ars-sandbox` child made in each; the reason when not usable. */
export function detectCgroups(root = CGROUP_ROOT): CgroupHost | { reason: string } {
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(':'));
    if (existsSync(path.join(root, 'cgroup.controllers'))) {
      const dir = path.join(root, own.find(([id]) => id === '0')?.[2] ?? '/', 'ars-sandbox');
      mkdirSync(dir, { recursive: true });
      removeStale(dir);
      // Children of ars-sandbox get the three controllers; ars-sandbox itself holds no process.
      writeFileSync(path.join(dir, 'cgroup.subtree_control'), '+memory +pids +cpu');
      return { version: 2, parents: { memory: dir, pids: dir, cpu: dir } };
    }
    const parent = (c: Controller) => {
      const line = own.find(([, list]) => list?.split(',').includes(c));
      if (!line) throw new Error(`no ${c} cgroup`);
      const dir = path.join(root, c, line[2]!, 'ars-sandbox');
      mkdirSync(dir, { recursive: true });
      removeStale(dir);
      return dir;
    };
    return { version: 1, parents: { memory: parent('memory'), pids: parent('pids'), cpu: parent('cpu') } };
  } catch (err) {
    return { reason: String(err) };
  }
}

/** The groups of one command. */
export class CommandCgroups {
  private constructor(
    private readonly host: CgroupHost,
    /** The directories made (one with v2). */
    readonly dirs: string[],
  ) {}

  static create(host: CgroupHost, limits: CgroupLimits): CommandCgroups {
    // The pid tells whose group it is (removeStale); the random part keeps threads of one process apart.
    const name = `cmd-${process.pid}-${randomBytes(6).toString('hex')}`;
    const dirOf = (c: Controller) => path.join(host.parents[c], name);
    const dirs = [...new Set((['memory', 'pids', 'cpu'] as const).map(dirOf))];
    for (const dir of dirs) mkdirSync(dir);
    const groups = new CommandCgroups(host, dirs);
    const quota = Math.max(1000, Math.round(limits.cpus * PERIOD_US));
    try {
      if (host.version === 2) {
        groups.write(dirOf('memory'), {
          'memory.max': limits.memoryBytes,
          'pids.max': limits.maxProcesses,
          'cpu.max': `${quota} ${PERIOD_US}`,
        });
        // Absent without swap accounting; there is then no swap to limit.
        if (existsSync(path.join(dirOf('memory'), 'memory.swap.max')))
          groups.write(dirOf('memory'), { 'memory.swap.max': 0 });
      } else {
        groups.write(dirOf('memory'), { 'memory.limit_in_bytes': limits.memoryBytes });
        // Without swap accounting the file is absent; there is then no swap to limit.
        if (existsSync(path.join(dirOf('memory'), 'memory.memsw.limit_in_bytes'))) {
          groups.write(dirOf('memory'), { 'memory.memsw.limit_in_bytes': limits.memoryBytes });
        }
        groups.write(dirOf('pids'), { 'pids.max': limits.maxProcesses });
        groups.write(dirOf('cpu'), { 'cpu.cfs_period_us': PERIOD_US, 'cpu.cfs_quota_us': quota });
      }
    } catch (err) {
      void groups.remove();
      throw err;
    }
    return groups;
  }

  /** The files a process writes its pid to, to join every group. */
  get procsFiles(): string[] {
    return this.dirs.map((d) => path.join(d, 'cgroup.procs'));
  }

  /** How many processes the kernel killed for exceeding the memory limit. */
  oomKills(): number {
    const file = this.host.version === 2 ? 'memory.events' : 'memory.oom_control';
    const text = readOr(path.join(this.memoryDir, file));
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  /** Kills what is left in the groups (the caller already killed the process group) and removes them. */
  async remove(): Promise<void> {
    for (const dir of this.dirs) {
      for (const pid of readOr(path.join(dir, 'cgroup.procs')).split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await Promise.all(this.dirs.map(removeWhenEmpty));
  }

  private get memoryDir(): string {
    return this.dirs.find((d) => d.startsWith(this.host.parents.memory))!;
  }

  private write(dir: string, values: Record<string, string | number>): void {
    for (const [file, value] of Object.entries(values)) writeFileSync(path.join(dir, file), String(value));
  }
}

/** rmdir fails with EBUSY while killed processes are still exiting: retry briefly, then leave it (removed at the next start). */
async function removeWhenEmpty(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return rmdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Groups a crashed worker left behind (its pid is gone); those of live workers are theirs. */
function removeStale(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(/^cmd-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // still busy; next time
    }
  }
}

/** The program and arguments that join the groups, then exec `file` (as root, before bwrap drops privileges). */
export function inCgroups(groups: CommandCgroups, file: string, args: string[]): [string, string[]] {
  const join = 'p=$$; while [ "$1" != -- ]; do echo "$p" > "$1" || exit 125; shift; done; shift; exec "$@"';
  return ['sh', ['-c', join, 'sh', ...groups.procsFiles, '--', file, ...args]];
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
