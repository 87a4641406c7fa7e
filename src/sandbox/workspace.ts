import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { HOST_TOOL_PATH, SANDBOX_HOME_DIR, SANDBOX_WORKSPACE } from './limits.ts';
import { extractArchive } from './snapshots.ts';
import { latestSnapshot } from '../db/sandbox-snapshots.ts';

/** What preparing a workspace did; `sandbox_started` and `sandbox_restored` are shown to the run as SYSTEM_STATUS. */
export type WorkspaceStatus =
  | { status: 'sandbox_ready' }
  | { status: 'sandbox_started'; workspace: string; restore_failed_snapshot_id?: string }
  | {
      status: 'sandbox_restored';
      workspace: string;
      snapshot_id: string;
      snapshot_created_at: string;
      size_bytes: number;
    };

export interface WorkspaceTarget {
  orgId: string;
  agentId: string;
  dir: string;
  /** Root mode: the sandbox's uid, which must own every file of the workspace. */
  ownerUid?: number;
}

/**
 * Makes sure this host has the workspace: nothing to do when it exists; otherwise
 * the latest snapshot is unpacked (a container restart, another host) or, without
 * one, a fresh workspace with a HOME is made. Built beside the final path and
 * renamed into place, so a crash never leaves a half-restored workspace.
 * Callers hold the sandbox's lock.
 */
export async function ensureWorkspace(db: Db, target: WorkspaceTarget, logger: Logger): Promise<WorkspaceStatus> {
  if (existsSync(target.dir)) return { status: 'sandbox_ready' };
  const parent = path.dirname(target.dir);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(path.join(parent, `.${path.basename(target.dir)}.new-`));
  try {
    let status: WorkspaceStatus = { status: 'sandbox_started', workspace: SANDBOX_WORKSPACE };
    const snapshot = await latestSnapshot(db, target.orgId, target.agentId);
    if (snapshot) {
      try {
        await extractArchive(snapshot.archive, staging);
        status = {
          status: 'sandbox_restored',
          workspace: SANDBOX_WORKSPACE,
          snapshot_id: snapshot.id,
          snapshot_created_at: snapshot.createdAt.toISOString(),
          size_bytes: snapshot.sizeBytes,
        };
      } catch (err) {
        // A broken archive must not lock the agent out of its sandbox: start afresh and say so.
        logger.error({ snapshotId: snapshot.id, err: String(err) }, 'sandbox snapshot could not be restored');
        await rm(staging, { recursive: true, force: true });
        await mkdir(staging, { mode: 0o700 });
        status = { status: 'sandbox_started', workspace: SANDBOX_WORKSPACE, restore_failed_snapshot_id: snapshot.id };
      }
    }
    const home = path.join(staging, SANDBOX_HOME_DIR);
    await mkdir(home, { recursive: true, mode: 0o755 });
    if (target.ownerUid !== undefined) await chownTree(staging, target.ownerUid);
    await rename(staging, target.dir);
    return status;
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

const execFileAsync = promisify(execFile);

/** chown -R without following symlinks (-P is chown's default for -R; -h changes the links themselves). */
export async function chownTree(dir: string, uid: number): Promise<void> {
  await execFileAsync('chown', ['-R', '-h', `${uid}:${uid}`, dir], { env: { PATH: HOST_TOOL_PATH } });
}
