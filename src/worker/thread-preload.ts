/**
 * Loaded with `--import` (and `--expose-gc`) by every worker start command, so that it runs in each thread of the
 * worker process: the main one and the SDK's workflow threads, which run no other code of ours outside the sandbox.
 */
import './quiet-gc.ts';
import './workflow-stack-traces.ts';
