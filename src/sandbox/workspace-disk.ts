import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rename, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { isAlive } from '../processes/lifecycle.ts';
import { HOST_TOOL_PATH } from './limits.ts';

const run = promisify(execFile);
const tool = (file: string, args: string[]) => run(file, args, { env: { PATH: HOST_TOOL_PATH } });

/**
 * The disk quota of one workspace: a sparse ext4 image file under the data
 * directory, loop-mounted (nosuid, nodev) where the workspace lives. A sandbox
 * that fills its workspace fills its own file system and gets ENOSPC; the host's
 * data disk (where PostgreSQL and Temporal write) holds at most the image's size.
 * The image persists: after a worker restart the next operation mounts it again.
 * Callers hold the sandbox's lock.
 */
export class WorkspaceDisk {
  constructor(
    /** The image file on the host's data disk. */
    readonly image: string,
    /** Where the image is mounted; the workspace is a directory inside. */
    readonly mountPoint: string,
    private readonly sizeBytes: number,
  ) {}

  /** Mounts the image, first making it when it is missing and `create` is set. False when there is no image. */
  async mount(create: boolean): Promise<boolean> {
    if (await isMountPoint(this.mountPoint)) return true;
    if (!existsSync(this.image)) {
      if (!create) return false;
      await this.makeImage();
    }
    await this.growToSize();
    await mkdir(this.mountPoint, { recursive: true, mode: 0o700 });
    await tool('mount', ['-t', 'ext4', '-o', 'loop,nosuid,nodev,noatime', this.image, this.mountPoint]);
    return true;
  }

  /**
   * SANDBOX_DISK_BYTES grew since the image was made: grow it before mounting (offline:
   * containers often refuse the online resize ioctl). Never shrunk: that could lose files.
   */
  private async growToSize(): Promise<void> {
    if ((await stat(this.image)).size >= this.sizeBytes) return;
    await truncate(this.image, this.sizeBytes);
    // e2fsck exits 1 when it corrected something: still fine to resize.
    await tool('e2fsck', ['-f', '-p', this.image]).catch((err: { code?: number }) => {
      if (err.code !== 1) throw err;
    });
    await tool('resize2fs', [this.image]);
  }

  /** A sparse file with an empty ext4 file system (no blocks reserved for root), made beside the final path and renamed in. */
  private async makeImage(): Promise<void> {
    await mkdir(path.dirname(this.image), { recursive: true, mode: 0o700 });
    const staging = `${this.image}.new-${process.pid}`;
    try {
      const handle = await open(staging, 'w', 0o600);
      await handle.truncate(this.sizeBytes);
      await handle.close();
      // The file is sparse, so unwritten blocks read as zeros: the journal need not be zeroed (saves 64 MiB per 2 GiB image).
      await tool('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', 'lazy_journal_init=1', '-L', 'workspace', staging]);
      await rename(staging, this.image);
    } catch (err) {
      await rm(staging, { force: true });
      throw err;
    }
  }
}

async function isMountPoint(dir: string): Promise<boolean> {
  const [self, parent] = await Promise.all([
    stat(dir).catch(() => undefined),
    stat(path.dirname(dir)).catch(() => undefined),
  ]);
  return self !== undefined && parent !== undefined && self.dev !== parent.dev;
}

/**
 * Whether this host can loop-mount images (root, mount and mkfs.ext4 present, a
 * loop device available, not forbidden by the container): tried once with a tiny image.
 */
export async function canMountDisks(): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (process.getuid?.() !== 0) return { ok: false, reason: 'the worker does not run as root' };
  await removeStaleProbes();
  const dir = await mkdtemp(path.join(tmpdir(), `${PROBE_PREFIX}${process.pid}-`));
  const disk = new WorkspaceDisk(path.join(dir, 'probe.ext4'), path.join(dir, 'mnt'), 8 * 1024 * 1024);
  try {
    await disk.mount(true);
    await tool('umount', [disk.mountPoint]);
    return { ok: true };
  } catch (err) {
    const reason = String((err as { stderr?: string }).stderr || err)
      .trim()
      .split('\n')[0]!;
    return { ok: false, reason };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const PROBE_PREFIX = 'ars-disk-probe-';
/** A probe directory named without its worker's pid (before it was named with one) is stale after this long; a probe takes a second. */
const UNNAMED_PROBE_STALE_MS = 10 * 60_000;

/**
 * A worker killed during its probe (kill -9, a crash) left the probe's image mounted in its
 * directory: unmount and remove the directories of probes whose worker is gone.
 */
async function removeStaleProbes(): Promise<void> {
  const names = (await readdir(tmpdir()).catch(() => [])).filter((name) => name.startsWith(PROBE_PREFIX));
  for (const name of names) {
    const dir = path.join(tmpdir(), name);
    const pid = Number(/^(\d+)-/.exec(name.slice(PROBE_PREFIX.length))?.[1]);
    const stale = Number.isInteger(pid)
      ? !isAlive(pid)
      : Date.now() - ((await stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now()) > UNNAMED_PROBE_STALE_MS;
    if (!stale) continue;
    unmountDisksBelow(dir);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Unmounts every workspace disk mounted below `dir` (before the directory is deleted: tests, an operator's cleanup). */
export function unmountDisksBelow(dir: string): void {
  const prefix = path.resolve(dir) + path.sep;
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1]?.replace(/\\040/g, ' '))
    .filter((m): m is string => m !== undefined && m.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
  for (const mountPoint of mounts)
    spawnSync('umount', ['-l', mountPoint], { env: { PATH: HOST_TOOL_PATH }, stdio: 'ignore' });
}
