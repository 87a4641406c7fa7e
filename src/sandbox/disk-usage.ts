import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { HOST_TOOL_PATH } from './limits.ts';

const run = promisify(execFile);

/**
 * The fallback disk quota, for hosts that cannot mount a workspace disk (not root,
 * no loop devices, SANDBOX_DISK_IMAGES=false): a usage check before each write.
 * It is weaker than the image: one command may still write up to
 * SANDBOX_MAX_FILE_BYTES per file beyond the quota before the next check. Over the
 * quota, write_file is refused and commands run with a file size limit of 0, so they
 * can delete files but not grow any.
 */
export async function workspaceBytes(dir: string): Promise<number> {
  // -x: this file system only; -B1: allocated bytes, what fills a disk.
  const { stdout } = await run('du', ['-s', '-x', '-B1', dir], { env: { PATH: HOST_TOOL_PATH } });
  return Number(stdout.split('\t')[0]);
}

export interface OverQuota {
  usedBytes: number;
  quotaBytes: number;
}

export const overQuotaNote = (q: OverQuota) =>
  `[the workspace is over its disk quota (${q.usedBytes} of ${q.quotaBytes} bytes): files cannot grow in this command; delete some]`;
