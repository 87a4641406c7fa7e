import { spawn } from 'node:child_process';
import type { Db } from '../db/client.ts';
import { storeSnapshot } from '../db/sandbox-snapshots.ts';
import { newId } from '../shared/ids.ts';
import { HOST_TOOL_PATH, SANDBOX_HOME_DIR } from './limits.ts';

/**
 * Workspace snapshots: a gzip'd tarball of the whole workspace (HOME included,
 * its .cache excluded) in the `sandbox_snapshots` table, the newest few kept per
 * (org, agent). Archives are made only by us, from a real directory, so they hold
 * no `..` names and no member below a symlink.
 */
export type SnapshotResult =
  | { snapshot_id: string; size_bytes: number }
  | { snapshot_id: null; skipped: 'no_workspace' | 'too_large'; size_limit_bytes?: number };

export interface SnapshotTarget {
  orgId: string;
  agentId: string;
  runId?: string;
  dir: string;
}

export async function saveSnapshot(
  db: Db,
  target: SnapshotTarget,
  limits: { maxBytes: number; keep: number },
): Promise<SnapshotResult> {
  const archive = await archiveDirectory(target.dir, limits.maxBytes);
  if (!archive) return { snapshot_id: null, skipped: 'too_large', size_limit_bytes: limits.maxBytes };
  const id = newId('snap');
  await storeSnapshot(
    db,
    { id, orgId: target.orgId, agentId: target.agentId, runId: target.runId ?? null, archive },
    limits.keep,
  );
  return { snapshot_id: id, size_bytes: archive.length };
}

/** `tar czf -` of the directory's contents, or undefined when the archive would exceed maxBytes. */
export function archiveDirectory(dir: string, maxBytes: number): Promise<Buffer<ArrayBuffer> | undefined> {
  const args = ['-C', dir, '--numeric-owner', `--exclude=./${SANDBOX_HOME_DIR}/.cache`, '-czf', '-', '.'];
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: HOST_TOOL_PATH } });
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    let stderr = '';
    tar.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        tar.kill('SIGKILL');
      } else chunks.push(chunk);
    });
    tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    tar.once('error', reject);
    tar.once('close', (code) => {
      if (tooLarge) return resolve(undefined);
      // 1 = "some files changed while being read": still a usable archive.
      if (code !== 0 && code !== 1) return reject(new Error(`tar exited with ${code}: ${stderr.slice(0, 500)}`));
      // Buffer.concat allocates a fresh (never shared) ArrayBuffer.
      resolve(Buffer.concat(chunks) as Buffer<ArrayBuffer>);
    });
  });
}

/** Unpacks an archive into an existing empty directory. */
export function extractArchive(archive: Uint8Array, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-C', dir, '--no-same-owner', '-xzf', '-'], {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { PATH: HOST_TOOL_PATH },
    });
    let stderr = '';
    tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    tar.stdin.on('error', () => {}); // tar failing early closes its stdin; the exit code says why
    tar.once('error', reject);
    tar.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tar exited with ${code}: ${stderr.slice(0, 500)}`)),
    );
    tar.stdin.end(archive);
  });
}
