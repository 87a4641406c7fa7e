import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_HOME } from './limits.ts';

/**
 * Who a sandbox's processes are.
 *
 * As root, the worker cannot rely on a user namespace: processes whose real uid
 * is root are exempt from RLIMIT_NPROC, so the process limit would not hold.
 * Each sandbox therefore runs as its own unprivileged host uid (derived from
 * org and agent, in [uidBase, uidBase + 65536)), dropped to with setpriv inside
 * bwrap. That uid owns the workspace files on the host.
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

export function sandboxIdentity(orgId: string, agentId: string, uidBase: number, workerIsRoot: boolean): SandboxIdentity {
  if (!workerIsRoot) return { uid: UNPRIVILEGED_INSIDE_UID };
  const digest = createHash('sha256').update(`${orgId}/${agentId}`).digest();
  const uid = uidBase + digest.readUInt16BE(0);
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
