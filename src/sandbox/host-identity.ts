import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export interface SandboxHostIdentity {
  hostId: string;
  /** The task queue only this host's workers poll: sandbox activities of the sandboxes it holds go there. */
  taskQueue: string;
}

const known = new Map<string, SandboxHostIdentity>();

/**
 * A sandbox host is a DATA_DIR: the workspaces live there, so every worker process
 * sharing it is the same host and polls the same host queue. The id is SANDBOX_HOST_ID,
 * or a random one written into DATA_DIR on first use, so a worker restarted on the same
 * volume is still the host of its sandboxes.
 */
export function sandboxHostIdentity(config: Config): SandboxHostIdentity {
  const key = `${config.dataDir}\0${config.sandbox.hostId ?? ''}\0${config.temporal.taskQueue}`;
  let identity = known.get(key);
  if (!identity) {
    const hostId = config.sandbox.hostId ?? persistentHostId(config.dataDir);
    identity = { hostId, taskQueue: hostTaskQueue(config.temporal.taskQueue, hostId) };
    known.set(key, identity);
  }
  return identity;
}

export function hostTaskQueue(taskQueue: string, hostId: string): string {
  return `${taskQueue}-host-${hostId}`;
}

function persistentHostId(dataDir: string): string {
  const file = path.join(dataDir, 'sandbox-host-id');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const id = `h${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(file, id, { flag: 'wx' });
    return id;
  } catch {
    return readFileSync(file, 'utf8').trim(); // another process of this host wrote it first
  }
}
