import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/client.ts';
import { sandboxSlot } from '../db/sandbox-identities.ts';
import { SANDBOX_HOME } from './limits.ts';

/**
 * Who a sandbox's processes are.
 *
 * As root, the worker cannot rely on a user namespace: processes whose real uid
 * is root are exempt from RLIMIT_NPROC, so the process limit would not hold.
 * Each sandbox therefore runs as its own unprivileged host uid, dropped to with
 * setpriv inside bwrap. That uid owns the workspace files on the host, and counts
 * the sandbox's processes, so no two sandboxes may share it: it comes from the
 * sandbox's slot in PostgreSQL (src/db/sandbox-identities.ts), allocated once per
 * (org, agent) from a sequence, the same on every host. (It used to be a 16-bit hash
 * of org and agent, which two sandboxes shared with even odds at about 300.)
 *
 * Not as root, bwrap makes a user namespace and maps uid 1000 inside to the
 * worker's uid; RLIMIT_NPROC then counts the sandbox's namespace only.
 */
export interface SandboxIdentity {
  /** Drop to this uid/gid with setpriv (root mode); undefined when bwrap runs unprivileged. */
  hostUid?: number;
  /** The uid/gid processes see inside the sandbox. */
  uid: number;
}

const UNPRIVILEGED_INSIDE_UID = 1000;

/**
 * Slots start past the range the hashed uids took ([uidBase, uidBase + 65536)): a workspace
 * made under a hashed uid is handed to its new uid on its next operation, and until then
 * no other sandbox's uid owns its files.
 */
const HASHED_UIDS = 65_536;
/** (uid_t)-1 means "no change" to setuid-family calls: never a sandbox's uid. */
const MAX_UID = 0xffff_fffe;

export function sandboxUid(uidBase: number, slot: number): number {
  const uid = uidBase + HASHED_UIDS + slot;
  if (uid > MAX_UID) throw new Error(`sandbox uid ${uid} is out of range: lower SANDBOX_UID_BASE`);
  return uid;
}

export async function sandboxIdentity(
  db: Db,
  orgId: string,
  agentId: string,
  uidBase: number,
  workerIsRoot: boolean,
): Promise<SandboxIdentity> {
  if (!workerIsRoot) return { uid: UNPRIVILEGED_INSIDE_UID };
  const uid = sandboxUid(uidBase, await sandboxSlot(db, orgId, agentId));
  return { hostUid: uid, uid };
}

/**
 * The sandbox's own /etc/passwd, /etc/group, /etc/hosts and /etc/hostname (the host's are
 * never shown: they name the host's users and machines). Written once per uid under
 * `<dir>/etc-<uid>/` and bind-mounted read-only.
 */
export function identityFiles(dir: string, uid: number): Record<'passwd' | 'group' | 'hosts' | 'hostname', string> {
  const base = path.join(dir, `etc-${uid}`);
  const contents = {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${uid}:${uid}:sandbox:${SANDBOX_HOME}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nsandbox:x:${uid}:\nnogroup:x:65534:\n`,
    hosts: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost\n',
    hostname: 'sandbox\n',
  };
  mkdirSync(base, { recursive: true, mode: 0o755 });
  const files = {} as Record<keyof typeof contents, string>;
  for (const [name, content] of Object.entries(contents) as [keyof typeof contents, string][]) {
    const file = path.join(base, name);
    if (readIfExists(file) !== content) writeFileSync(file, content, { mode: 0o644 });
    files[name] = file;
  }
  return files;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
