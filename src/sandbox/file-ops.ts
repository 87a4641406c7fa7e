import { constants } from 'node:fs';
import { chown, lstat, mkdir, open, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../shared/tools/tool-error.ts';
import { resolveWorkspacePath } from './workspace-paths.ts';

/** A workspace as the file operations see it. */
export interface WorkspaceFiles {
  /** The workspace directory on the host, without symlinks. */
  root: string;
  /** Root mode: files the worker creates are given to the sandbox's uid, so its commands can change them. */
  ownerUid?: number;
}

export interface FileContent {
  path: string;
  /** UTF-8 text, or base64 when the bytes are not valid UTF-8. */
  content: string;
  encoding: 'utf-8' | 'base64';
  size_bytes: number;
  /** Only the first `maxBytes` were read. */
  truncated: boolean;
}

export async function readWorkspaceFile(ws: WorkspaceFiles, input: string, maxBytes: number): Promise<FileContent> {
  const target = await resolveWorkspacePath(ws.root, input);
  if (target.missing.length > 0) throw new ToolError(`${target.relative}: no such file`, 'NOT_FOUND');
  const stat = await lstat(target.host);
  if (stat.isDirectory()) throw new ToolError(`${target.relative} is a directory; use list_files`, 'IS_A_DIRECTORY');
  // FIFOs and sockets would block or never end.
  if (!stat.isFile()) throw new ToolError(`${target.relative} is not a regular file`, 'NOT_A_FILE');
  const length = Math.min(stat.size, maxBytes);
  const handle = await open(target.host, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const buffer = Buffer.alloc(length);
  try {
    let offset = 0;
    while (offset < length) {
      const { bytesRead } = await handle.read(buffer, offset, length - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    const bytes = buffer.subarray(0, offset);
    const truncated = stat.size > offset;
    const text = decodeUtf8(bytes, truncated);
    return {
      path: target.relative,
      content: text ?? bytes.toString('base64'),
      encoding: text === undefined ? 'base64' : 'utf-8',
      size_bytes: stat.size,
      truncated,
    };
  } finally {
    await handle.close();
  }
}

export async function writeWorkspaceFile(ws: WorkspaceFiles, input: string, content: string, maxBytes: number) {
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.length > maxBytes)
    throw new ToolError(`content is ${bytes.length} bytes; write_file accepts at most ${maxBytes}`, 'TOO_LARGE');
  const target = await resolveWorkspacePath(ws.root, input);
  if (target.relative === '.') throw new ToolError('give a file path, not the workspace itself', 'IS_A_DIRECTORY');
  if (target.missing.length === 0) {
    const stat = await lstat(target.host);
    if (stat.isDirectory()) throw new ToolError(`${target.relative} is a directory`, 'IS_A_DIRECTORY');
    if (!stat.isFile()) throw new ToolError(`${target.relative} is not a regular file`, 'NOT_A_FILE');
  }
  // Create the missing directories one by one, each handed to the sandbox's uid.
  let dir = target.existing;
  for (const part of target.missing.slice(0, -1)) {
    dir = path.join(dir, part);
    await mkdir(dir, { mode: 0o755 });
    await giveToSandbox(ws, dir);
  }
  const created = target.missing.length > 0;
  const handle = await open(
    target.host,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
  if (created) await giveToSandbox(ws, target.host);
  return { path: target.relative, size_bytes: bytes.length, created };
}

export interface FileEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size_bytes?: number;
  /** Where a symlink points (as written; not followed). */
  target?: string;
}

/** Lists a directory (optionally its whole tree, depth first, sorted by name); symlinked directories are not entered. */
export async function listWorkspaceFiles(
  ws: WorkspaceFiles,
  input: string,
  opts: { recursive: boolean; limit: number },
) {
  const start = await resolveWorkspacePath(ws.root, input);
  if (start.missing.length > 0) throw new ToolError(`${start.relative}: no such directory`, 'NOT_FOUND');
  if (!(await lstat(start.host)).isDirectory())
    throw new ToolError(`${start.relative} is not a directory; use read_file`, 'NOT_A_DIRECTORY');
  const entries: FileEntry[] = [];
  let truncated = false;
  const walk = async (hostDir: string, relDir: string): Promise<void> => {
    const names = (await readdir(hostDir)).sort();
    for (const name of names) {
      if (entries.length >= opts.limit) {
        truncated = true;
        return;
      }
      const host = path.join(hostDir, name);
      const rel = relDir === '.' ? name : `${relDir}/${name}`;
      const stat = await lstat(host).catch(() => undefined);
      if (!stat) continue;
      if (stat.isSymbolicLink()) entries.push({ path: rel, type: 'symlink', target: await readlink(host) });
      else if (stat.isDirectory()) {
        entries.push({ path: rel, type: 'directory' });
        if (opts.recursive) await walk(host, rel);
      } else entries.push({ path: rel, type: stat.isFile() ? 'file' : 'other', size_bytes: stat.size });
    }
  };
  await walk(start.host, start.relative);
  return { path: start.relative, entries, truncated };
}

export async function giveToSandbox(ws: WorkspaceFiles, file: string): Promise<void> {
  if (ws.ownerUid !== undefined) await chown(file, ws.ownerUid, ws.ownerUid);
}

/** Text when the bytes are UTF-8; a read cut short may end inside a character, which is dropped. */
function decodeUtf8(bytes: Buffer, truncated: boolean): string | undefined {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let drop = 0; drop <= (truncated ? 3 : 0); drop++) {
    try {
      return decoder.decode(bytes.subarray(0, bytes.length - drop));
    } catch {
      // try a shorter prefix
    }
  }
  return undefined;
}
