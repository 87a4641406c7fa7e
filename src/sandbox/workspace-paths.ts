import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../shared/tools/tool-error.ts';
import { SANDBOX_WORKSPACE } from './limits.ts';

export interface WorkspacePath {
  /** The path inside the workspace as the sandbox sees it, relative ('.' for the root). */
  relative: string;
  /** The host path: every existing part resolved (no symlinks left in it), then the missing parts. */
  host: string;
  /** Trailing parts that do not exist yet (empty when the whole path exists). */
  missing: string[];
  /** The host path of the part that exists (equal to `host` when nothing is missing). */
  existing: string;
}

const MAX_SYMLINK_HOPS = 40;

export const outsideWorkspace = (what: string) =>
  new ToolError(
    `${what} is outside the workspace; use a path relative to ${SANDBOX_WORKSPACE}`,
    'PATH_OUTSIDE_WORKSPACE',
  );

/**
 * Resolves a path the model gave against the workspace the way the sandbox would
 * see it: relative to /workspace, or absolute under /workspace. Symlinks are
 * followed one part at a time with the sandbox's meaning (an absolute target is
 * read inside the sandbox, where only /workspace is the workspace), and any step
 * that would leave the workspace is refused: absolute paths elsewhere, `..`
 * above the root, symlinks to the host's files. Race-free because no sandbox
 * process runs while a file operation holds the sandbox's lock.
 */
export async function resolveWorkspacePath(root: string, input: string): Promise<WorkspacePath> {
  if (input.includes('\0')) throw new ToolError('path contains a NUL byte', 'INVALID_PATH');
  const pending = split(toRelative(input, input));
  const parts: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '..') {
      if (parts.length === 0) throw outsideWorkspace(input);
      parts.pop();
      continue;
    }
    const host = path.join(root, ...parts, part);
    const stat = await lstat(host).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!stat) {
      const missing = [part, ...pending];
      if (missing.includes('..')) throw new ToolError(`${input}: no such directory`, 'NOT_FOUND');
      return {
        relative: [...parts, ...missing].join('/'),
        host: path.join(root, ...parts, ...missing),
        missing,
        existing: path.join(root, ...parts),
      };
    }
    if (stat.isSymbolicLink()) {
      if (++hops > MAX_SYMLINK_HOPS) throw new ToolError(`${input}: too many levels of symbolic links`, 'INVALID_PATH');
      const target = await readlink(host);
      if (path.posix.isAbsolute(target)) parts.length = 0;
      pending.unshift(...split(toRelative(target, input)));
      continue;
    }
    if (pending.length > 0 && !stat.isDirectory())
      throw new ToolError(`${[...parts, part].join('/')} is not a directory`, 'NOT_A_DIRECTORY');
    parts.push(part);
  }
  const host = path.join(root, ...parts);
  return { relative: parts.join('/') || '.', host, missing: [], existing: host };
}

/** `/workspace/x` → `x`; any other absolute path is outside. */
function toRelative(p: string, original: string): string {
  if (!path.posix.isAbsolute(p)) return p;
  const normal = path.posix.normalize(p);
  if (normal === SANDBOX_WORKSPACE || normal === `${SANDBOX_WORKSPACE}/`) return '.';
  if (normal.startsWith(`${SANDBOX_WORKSPACE}/`)) return normal.slice(SANDBOX_WORKSPACE.length + 1);
  throw outsideWorkspace(original === p ? original : `${original} (a symbolic link to ${p})`);
}

function split(p: string): string[] {
  return p.split('/').filter((s) => s !== '' && s !== '.');
}
