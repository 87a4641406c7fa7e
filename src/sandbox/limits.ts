import type { Config } from '../config.ts';

/** The sandbox settings of src/config.ts (SANDBOX_*). */
export type SandboxLimits = Config['sandbox'];

/** Host helper programs (bwrap, setpriv, tar, chown) are looked up here, never on the worker's own PATH. */
export const HOST_TOOL_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where the workspace appears inside the sandbox, and the persistent HOME inside it. */
export const SANDBOX_WORKSPACE = '/workspace';
export const SANDBOX_HOME_DIR = '.home';
export const SANDBOX_HOME = `${SANDBOX_WORKSPACE}/${SANDBOX_HOME_DIR}`;
